"""The REST router's kept matches (service.rest.routes.Router): any sequence of calls answers as a router that keeps
nothing, whatever repeats, whatever the bound on what is kept."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.rest.app import SERVICES
from service.rest.routes import RouteMatch, Router, routes_for_services

ROUTES = routes_for_services(SERVICES)
SEGMENT = st.text(alphabet="abcXYZ019-_.%2F ", min_size=0, max_size=6)
PATHS = st.one_of(
    st.builds(lambda s: f"/v1/games/{s}", SEGMENT),
    st.builds(lambda s: f"/v1/games/{s}/moves", SEGMENT),
    st.builds(lambda s, t: f"/v1/games/{s}/{t}", SEGMENT, SEGMENT),
    st.sampled_from(["/v1/games", "/v1/games:prepare", "/v1/variants", "/v1/deals", "/v1/", "/x"]),
)
METHODS = st.sampled_from(["GET", "POST", "post", "DELETE", "PUT"])


def fresh(method: str, path: str) -> RouteMatch | list[str]:
    return Router(ROUTES).match(method, path)


@settings(max_examples=200)
@given(calls=st.lists(st.tuples(METHODS, PATHS), min_size=1, max_size=30), kept=st.integers(1, 4))
def test_kept_matches_answer_as_a_fresh_router(calls: list[tuple[str, str]], kept: int) -> None:
    router = Router(ROUTES)
    router.kept = kept
    for method, path in [*calls, *calls]:  # each call again, once its match may be kept
        assert router.match(method, path) == fresh(method, path)
        assert len(router._matches) <= kept


def test_a_move_path_is_matched_once_then_kept() -> None:
    router = Router(ROUTES)
    first = router.match("POST", "/v1/games/g%201/moves")
    assert isinstance(first, RouteMatch) and first.route.rpc_name == "ApplyMove"
    assert first.path_params == {"game_id": "g 1"}
    assert router.match("POST", "/v1/games/g%201/moves") is first
    assert router.match("GET", "/v1/games/g%201/moves") == ["POST"]  # a refusal is never kept
    assert list(router._matches) == [("POST", "/v1/games/g%201/moves")]


def test_a_long_path_is_matched_but_not_kept() -> None:
    router = Router(ROUTES)
    long_id = "g" * (router.kept_path_length + 1)
    found = router.match("POST", f"/v1/games/{long_id}/moves")
    assert isinstance(found, RouteMatch) and found.path_params == {"game_id": long_id}
    assert not router._matches
    short = router.match("POST", "/v1/games/" + "g" * 64 + "/moves")  # the longest game id is kept
    assert isinstance(short, RouteMatch) and len(router._matches) == 1
