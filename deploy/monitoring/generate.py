"""The alerting and recording rules, written once here and generated into two files:

- deploy/monitoring/rules.yaml, a plain Prometheus rules file (`rule_files:` in prometheus.yml);
- deploy/k8s/monitoring/prometheusrule.yaml, the same groups as a Prometheus Operator PrometheusRule.

Run `python deploy/monitoring/generate.py` after changing this file; tests/deploy/test_monitoring.py fails while
either file differs from what it writes, checks both with promtool and runs the alerts' unit tests
(deploy/monitoring/rules.test.yaml). The objectives and the reasoning are in docs/operations.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
RULES_FILE = HERE / "rules.yaml"
PROMETHEUS_RULE_FILE = HERE.parent / "k8s" / "monitoring" / "prometheusrule.yaml"

#: Service-level objectives of ApplyMove over 30 days (docs/operations.md).
AVAILABILITY_OBJECTIVE = 0.999  # answered without a server-side error
LATENCY_OBJECTIVE = 0.99  # answered within LATENCY_THRESHOLD seconds, as the server timed it
LATENCY_THRESHOLD = "0.05"  # a bucket bound of service/observe/metrics.py's LATENCY_BUCKETS, written as Prometheus does

#: Status codes that spend the error budget: the server's fault. A refused move (FAILED_PRECONDITION,
#: INVALID_ARGUMENT, ABORTED for a stale version), a missing game or a bad token is the service working.
SERVER_ERRORS = "UNKNOWN|INTERNAL|UNAVAILABLE|DATA_LOSS"

#: Multi-window, multi-burn-rate alerts (the Google SRE workbook, "Alerting on SLOs"): each fires when the
#: budget burns this fast over the long window and is still burning over the short one.
BURN_ALERTS = [
    # (long window, short window, burn rate, severity): 2 % of a 30-day budget in 1 h, 5 % in 6 h, 10 % in 1 d
    # and 10 % in 3 d.
    ("1h", "5m", 14.4, "page"),
    ("6h", "30m", 6.0, "page"),
    ("1d", "2h", 3.0, "ticket"),
    ("3d", "6h", 1.0, "ticket"),
]
WINDOWS = ["5m", "30m", "1h", "2h", "6h", "1d", "3d"]

GRPC = 'grpc_server_handled_total{grpc_method="ApplyMove"%s}'
REST = 'patience_http_requests_total{rpc="ApplyMove"%s}'
GRPC_BUCKETS = 'grpc_server_handling_seconds_bucket{grpc_method="ApplyMove"%s}'
REST_BUCKETS = 'patience_http_request_duration_seconds_bucket{rpc="ApplyMove"%s}'


def both(grpc: str, rest: str, window: str, by: str = "") -> str:
    """The sum of a gRPC and a REST rate, either of which may have no series yet (`a + b or a or b`)."""
    a = f"sum{by}(rate({grpc}[{window}]))"
    b = f"sum{by}(rate({rest}[{window}]))"
    return f"{a}\n+ {b}\nor {a}\nor {b}"


def recording_rules() -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    for w in WINDOWS:
        rules += [
            {"record": f"patience:apply_move_requests:rate{w}", "expr": both(GRPC % "", REST % "", w)},
            {
                "record": f"patience:apply_move_errors:rate{w}",
                "expr": both(GRPC % f',grpc_code=~"{SERVER_ERRORS}"', REST % f',code=~"{SERVER_ERRORS}"', w)
                + "\nor vector(0)",
            },
            {
                "record": f"patience:apply_move_fast:rate{w}",
                "expr": both(
                    GRPC_BUCKETS % f',le="{LATENCY_THRESHOLD}"', REST_BUCKETS % f',le="{LATENCY_THRESHOLD}"', w
                ),
            },
            {
                "record": f"patience:apply_move_error_ratio:rate{w}",
                "expr": f"patience:apply_move_errors:rate{w} / patience:apply_move_requests:rate{w}",
            },
            {
                "record": f"patience:apply_move_slow_ratio:rate{w}",
                "expr": f"1 - patience:apply_move_fast:rate{w} / patience:apply_move_requests:rate{w}",
            },
        ]
    rules.append(
        {
            "record": "patience:apply_move_duration_seconds:p99_rate5m",
            "expr": "histogram_quantile(\n0.99,\n"
            + both(GRPC_BUCKETS % "", REST_BUCKETS % "", "5m", by=" by (le)")
            + "\n)",
        }
    )
    return rules


def burn_alerts(name: str, ratio: str, objective: float, what: str) -> list[dict[str, Any]]:
    budget = round(1 - objective, 6)
    alerts = []
    for long, short, rate, severity in BURN_ALERTS:
        threshold = f"{rate} * {budget}"
        alerts.append(
            {
                "alert": name,
                "expr": f"patience:apply_move_{ratio}:rate{long} > ({threshold})\n"
                f"and\npatience:apply_move_{ratio}:rate{short} > ({threshold})",
                "labels": {"severity": severity, "slo": f"apply-move-{what}", "long_window": long},
                "annotations": {
                    "summary": f"ApplyMove {what} budget burning at {rate:g}x the sustainable rate",
                    "description": (
                        f"Over {long} (and still over {short}), {{{{ $value | humanizePercentage }}}} of ApplyMove "
                        f"calls {'failed' if what == 'availability' else 'took over 50 ms'}; the objective allows "
                        f"{budget:.1%}. At this rate the 30-day budget lasts {30 / rate:.1f} days. "
                        "Runbook: docs/operations.md (objectives)."
                    ),
                },
            }
        )
    return alerts


def alerting_rules() -> list[dict[str, Any]]:
    errors_all = f'sum(rate(grpc_server_handled_total{{grpc_code=~"{SERVER_ERRORS}"}}[5m]))'
    calls_all = "sum(rate(grpc_server_handled_total[5m]))"
    rest_errors = f'sum(rate(patience_http_requests_total{{code=~"{SERVER_ERRORS}"}}[5m]))'
    rest_calls = "sum(rate(patience_http_requests_total[5m]))"
    return [
        *burn_alerts("PatienceApplyMoveErrorBudgetBurn", "error_ratio", AVAILABILITY_OBJECTIVE, "availability"),
        *burn_alerts("PatienceApplyMoveLatencyBudgetBurn", "slow_ratio", LATENCY_OBJECTIVE, "latency"),
        {
            "alert": "PatienceHighErrorRatio",
            "expr": f"(\n  ({errors_all} or vector(0))\n  + ({rest_errors} or vector(0))\n)\n"
            f"/\n(\n  ({calls_all} or vector(0))\n  + ({rest_calls} or vector(0))\n)\n> 0.05",
            "for": "5m",
            "labels": {"severity": "page"},
            "annotations": {
                "summary": "More than 5 % of all calls fail with a server error",
                "description": (
                    "{{ $value | humanizePercentage }} of gRPC and REST calls end in "
                    f"{SERVER_ERRORS.replace('|', ', ')} over 5 minutes. The logs' access lines name the "
                    "methods (docs/operations.md)."
                ),
            },
        },
        {
            "alert": "PatienceApplyMoveLatencyHigh",
            "expr": "patience:apply_move_duration_seconds:p99_rate5m > 0.1",
            "for": "10m",
            "labels": {"severity": "ticket"},
            "annotations": {
                "summary": "ApplyMove p99 latency above 100 ms",
                "description": "The 99th percentile of ApplyMove (gRPC and REST) is {{ $value | humanizeDuration }}"
                " over 5 minutes; the objective is 99 % within 50 ms.",
            },
        },
        {
            "alert": "PatienceRedisUnavailable",
            "expr": "patience_store_up == 0",
            "for": "1m",
            "labels": {"severity": "page"},
            "annotations": {
                "summary": "{{ $labels.instance }} cannot reach Redis",
                "description": "The Redis ping has failed for a minute: the replica is not ready and every game"
                " call fails with UNAVAILABLE. Check PATIENCE_REDIS_URL and the Redis server.",
            },
        },
        {
            "alert": "PatienceReadinessFlapping",
            "expr": "changes(patience_ready[15m]) > 4",
            "labels": {"severity": "ticket"},
            "annotations": {
                "summary": "{{ $labels.instance }} went in and out of readiness {{ $value }} times in 15 minutes",
                "description": "Readiness follows the Redis ping (and drops on SIGTERM): an unsteady connection to"
                " Redis, or a restart loop.",
            },
        },
        {
            "alert": "PatienceRateLimited",
            "expr": "sum by (method) (rate(patience_rate_limited_total[5m])) > 0.1",
            "for": "10m",
            "labels": {"severity": "ticket"},
            "annotations": {
                "summary": "{{ $labels.method }} refuses {{ $value | humanize }} calls/s for the rate limits",
                "description": "One address (or many players behind one front end that does not pass"
                " x-client-address with PATIENCE_FRONT_END_KEY) keeps meeting the per-address limits: an abuser,"
                " or a front end to configure (docs/security.md).",
            },
        },
        {
            "alert": "PatienceHintsBusy",
            "expr": "sum by (instance) (rate(patience_hints_busy_total[5m])) > 0.05",
            "for": "10m",
            "labels": {"severity": "ticket"},
            "annotations": {
                "summary": "{{ $labels.instance }} refuses {{ $value | humanize }} hints/s: its hint pool is full",
                "description": "Hints keep finding every hint process busy and the queue full (HINTS_BUSY). Give"
                " the replica more --hint-processes (and CPU), or a smaller --hint-states; the pool's"
                " patience_hints_running / _queued and patience_hint_solver_cpu_seconds show the load"
                " (docs/operations.md).",
            },
        },
    ]


def groups() -> list[dict[str, Any]]:
    return [
        {"name": "patience-slo-recording", "interval": "30s", "rules": recording_rules()},
        {"name": "patience-alerts", "rules": alerting_rules()},
    ]


HEADER = (
    "# Generated by deploy/monitoring/generate.py: edit that file, then run it. docs/operations.md explains.\n"
    "# yamllint disable rule:line-length\n"
)


class _Dumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks, so the expressions read as written."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=120, indent=2, default_flow_style=False)


def rules_file() -> str:
    return HEADER + dump({"groups": groups()})


def prometheus_rule_file() -> str:
    rule = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {
            "name": "patience",
            "labels": {"app.kubernetes.io/name": "patience", "app.kubernetes.io/component": "server"},
        },
        "spec": {"groups": groups()},
    }
    return HEADER + dump(rule)


def main() -> int:
    RULES_FILE.write_text(rules_file())
    PROMETHEUS_RULE_FILE.parent.mkdir(parents=True, exist_ok=True)
    PROMETHEUS_RULE_FILE.write_text(prometheus_rule_file())
    print(f"wrote {RULES_FILE.name} and {PROMETHEUS_RULE_FILE.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
