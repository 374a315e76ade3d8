"""Watching: WatchGame, the game as the caller may see it now and after every change, on any replica.

Who may watch: the game's owner (its credential, read by the same ``Steps.owned`` as every call on a game) sees
what GetGame shows them; a caller without one (a spectator) only a game dealt ``watchable``, and sees the same
Game message, which carries nothing the player's view hides (hidden cards never leave the server; the seed only
once the game is over). A game that is not watchable, or not there, refuses a spectator as GetGame refuses a call
without a token (MISSING_TOKEN): the refusal says nothing of whether the game exists. A daily deal's game is not
watchable while its day lasts.

How changes arrive: every write publishes the game's new version (``service.store.changes``); this replica follows
each watched game once, reads it once per change and shares the answer with its watchers (``watchers.Followed``).
A game's expiry is no write: each watcher wakes when its game would expire and reads it again.

A stream sends the game when its version passes the last one the caller saw (``after_version``; the current game
first with 0), and once more when the game ends (an expiry keeps the version), then ends; it also ends after
``--watch-max-seconds`` (the client reconnects with the last version it saw). A watcher that falls behind gets the
latest game, not every version in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from patience.v1 import patience_pb2 as pb

from service import errors
from service.errors import ServiceError
from service.games import messages
from service.games.ports import Changes, Credentials
from service.games.steps import Steps, unavailable
from service.games.watchers import Followed, Slots
from service.observe import metrics
from service.store import GameRecord, NotFound, StoreStatus, StoreUnavailable

log = logging.getLogger("service.games")

#: What a followed game's watchers share: the game as shown, and the seconds until it expires (as it was read).
Shown = tuple[pb.WatchGameResponse, float]
#: Seconds after a game's expiry time that its watchers read it again (the store's clock and ours differ a little).
EXPIRY_MARGIN = 0.05


class Watch:
    """One open stream: iterate it for the messages (``WatchGameResponse``), ``aclose()`` it when done, whether it
    was iterated or not (it holds a stream slot and a follower of the game until then)."""

    def __init__(
        self,
        updates: AsyncIterator[pb.WatchGameResponse],
        release: Callable[[], Awaitable[None]] | None = None,
        *,
        empty: bool = False,
    ) -> None:
        self._updates = updates
        self._release = release
        #: Nothing to send: the game was over at the caller's version (REST answers 204 No Content).
        self.empty = empty
        #: The stream ends because the game is over (its last state sent, or the caller had it): not to be resumed.
        self.over = empty

    def __aiter__(self) -> Watch:
        return self

    async def __anext__(self) -> pb.WatchGameResponse:
        update = await self._updates.__anext__()
        if update.game.status in messages.OVER:
            self.over = True
        return update

    async def aclose(self) -> None:
        try:
            aclose = getattr(self._updates, "aclose", None)
            if aclose is not None:
                await aclose()
        finally:
            release, self._release = self._release, None
            if release is not None:
                await release()


class Watching:
    def __init__(self, steps: Steps, changes: Changes | None) -> None:
        self.steps = steps
        self.changes = changes
        settings = steps.settings
        self.slots = Slots(settings.watch_streams, settings.watch_per_client)
        self.lifetime = settings.watch_max_seconds
        self.followed: dict[str, Followed[Shown]] = {}
        self.closing = False

    async def watch_game(self, request: pb.WatchGameRequest, credentials: Credentials) -> Watch:
        """Every refusal comes here, before the stream's first message: the transports answer it as the call's
        status (REST: before the event stream starts)."""
        if request.after_version < 0:
            raise errors.bad_after_version(request.after_version)
        if self.changes is None or self.closing:
            raise errors.watch_unavailable()
        client = await self.steps.limit("WatchGame", credentials)
        record = await self._admit(request.game_id, credentials)
        after = request.after_version if request.after_version <= record.version else 0  # not a version it had
        if _over(record):  # nothing will change: the last state, unless the caller has it, and the end
            if after >= record.version:
                return Watch(_nothing(), empty=True)
            return Watch(_once(await self._shown(record.game_id)))
        self.slots.take(client)
        metrics.WATCH_STREAMS.inc()
        try:
            followed = await self._follow(record.game_id)
        except BaseException:
            self.slots.give(client)
            metrics.WATCH_STREAMS.dec()
            raise

        async def release() -> None:
            self.slots.give(client)
            metrics.WATCH_STREAMS.dec()
            await self._unfollow(followed)

        return Watch(self._updates(followed, after), release)

    async def close(self) -> None:
        """End every stream (the server stops: clients reconnect elsewhere) and the change notifications."""
        self.closing = True
        for followed in list(self.followed.values()):
            followed.wake()
        if self.changes is not None:
            await self.changes.close()

    # -- who may watch

    async def _admit(self, game_id: str, credentials: Credentials) -> GameRecord:
        """The game, if the caller may watch it: its owner, or anyone when it is watchable."""
        if not game_id:
            raise errors.missing_game_id()
        if credentials.game_token:
            try:
                return await self.steps.fetch(game_id, credentials)
            except ServiceError as exc:
                if exc.reason != "WRONG_TOKEN":
                    raise
                record = await self._record(game_id)  # not the owner's credential: a spectator, if watchable
                if self._spectated(record):
                    return record
                raise
        try:
            record = await self._record(game_id)
        except ServiceError as exc:
            if exc.reason == "GAME_NOT_FOUND":
                raise errors.missing_token() from exc  # as GetGame without a token: no word on whether it exists
            raise
        if not self._spectated(record):
            raise errors.missing_token()
        return record

    def _spectated(self, record: GameRecord) -> bool:
        """Whether spectators may watch: the player said so, and the game is no daily deal's while its day lasts (a
        spectator who plays the deal too would see the hidden cards another player turns: docs/competition.md)."""
        return record.watchable and not self.steps.competition.sealed(record)

    async def _record(self, game_id: str) -> GameRecord:
        try:
            return await self.steps.store.fetch(game_id)
        except NotFound as exc:
            raise errors.game_not_found(game_id) from exc
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc

    # -- what is sent

    async def _shown(self, game_id: str) -> pb.WatchGameResponse:
        return (await self._read(game_id))[1][0]

    async def _read(self, game_id: str) -> tuple[int, Shown]:
        """The game as GetGame shows it (its certificate once won, signed from the log if none is kept yet), and
        the seconds until it expires if nobody writes to it (by the store's clock, as it was read)."""
        record = await self._record(game_id)
        kept = self.steps.wins.kept(record) if self.steps.key_ring is not None else None
        if record.status == StoreStatus.WON and self.steps.key_ring is not None and kept is None:
            try:
                record = await self.steps.store.fetch(game_id, moves=True)
            except NotFound as exc:
                raise errors.game_not_found(game_id) from exc
            except StoreUnavailable as exc:
                raise unavailable(exc) from exc
        game, state = self.steps.decode(record)
        response = pb.WatchGameResponse()
        self.steps.answers.game(record, game, state, into=response.game)
        await self.steps.wins.keep(record, response.game.certificate)
        expires_in = (record.expires_at - record.now) / 1000 if record.open and not record.expired else float("inf")
        return record.version, (response, expires_in)

    async def _updates(self, followed: Followed[Shown], after: int) -> AsyncIterator[pb.WatchGameResponse]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.lifetime
        last, fresher_than = after, 0.0
        while not self.closing:
            tick = followed.tick  # taken before the read: a change during it wakes the wait below
            version, (response, expires_in) = await followed.read(self._read, fresher_than=fresher_than)
            over = response.game.status in messages.OVER
            if version > last or over:
                last = version
                yield response
            if over or self.closing:
                return
            left = deadline - loop.time()
            expiry = max(0.0, expires_in - (time.monotonic() - followed.read_at)) + EXPIRY_MARGIN
            try:
                async with asyncio.timeout(min(left, expiry)):
                    await tick.wait()
            except TimeoutError:
                if loop.time() >= deadline:
                    return  # the stream's lifetime: the client reconnects with the last version it saw
                fresher_than = time.monotonic()  # the game may have expired since it was read

    async def _follow(self, game_id: str) -> Followed[Shown]:
        followed = self.followed.get(game_id)
        if followed is None:
            followed = self.followed[game_id] = Followed(game_id)
            metrics.WATCHED_GAMES.inc()
        followed.watchers += 1
        if followed.watchers == 1:
            assert self.changes is not None
            try:
                await self.changes.follow(game_id, followed.changed)
            except BaseException:
                await self._unfollow(followed)
                raise
        return followed

    async def _unfollow(self, followed: Followed[Shown]) -> None:
        followed.watchers -= 1
        if followed.watchers > 0:
            return
        if self.followed.get(followed.game_id) is followed:
            del self.followed[followed.game_id]
            metrics.WATCHED_GAMES.dec()
        if self.changes is not None:
            with contextlib.suppress(Exception):  # best effort: an unread subscription goes with its connection
                await self.changes.unfollow(followed.game_id, followed.changed)


def _over(record: GameRecord) -> bool:
    return messages.shown_status(record, None) in messages.OVER


async def _nothing() -> AsyncIterator[pb.WatchGameResponse]:
    return
    yield  # an async generator that ends at once


async def _once(response: pb.WatchGameResponse) -> AsyncIterator[pb.WatchGameResponse]:
    yield response
