"""Alerts, recording rules and the Grafana dashboard, checked against the metrics the service really exports.

- deploy/monitoring/rules.yaml and deploy/k8s/monitoring/prometheusrule.yaml are what
  deploy/monitoring/generate.py writes (one source), and hold the same groups;
- `promtool check rules` passes on both, and `promtool test rules` runs the alerts' unit tests;
- every metric that an alert, a recording rule or a dashboard query names is exported by the service (read from
  service/observe/metrics.py's registry, not from a list kept here) or recorded by a rule, and every label a selector
  or a grouping names is one of that metric's labels;
- the health gauges behind the Redis and readiness alerts follow a real Redis going away and SIGTERM.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import prometheus_client
import pytest
import redis_support
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc
from service_harness import ServerThread, settings_for

from service.observe import metrics

ROOT = Path(__file__).resolve().parents[2]
MONITORING = ROOT / "deploy" / "monitoring"
RULES = MONITORING / "rules.yaml"
RULE_TESTS = MONITORING / "rules.test.yaml"
DASHBOARD = MONITORING / "grafana-dashboard.json"
K8S_MONITORING = ROOT / "deploy" / "k8s" / "monitoring"
PROMETHEUS_RULE = K8S_MONITORING / "prometheusrule.yaml"
#: Labels that Prometheus adds to every scraped series, and the histogram bucket label.
TARGET_LABELS = {"instance", "job"}


def promtool() -> str:
    path = Path(sys.executable).parent / "promtool"
    if path.exists():
        return str(path)
    found = shutil.which("promtool")
    if found is None:
        pytest.fail("promtool is not installed: deploy/setup.sh takes it from Debian's prometheus", pytrace=False)
    return found


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("monitoring_generate", MONITORING / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_yaml(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict)
    return data


def rules() -> list[dict[str, Any]]:
    return [rule for group in load_yaml(RULES)["groups"] for rule in group["rules"]]


# ------------------------------------------------------------------------------------- one source, promtool


def test_rule_files_are_what_the_generator_writes() -> None:
    gen = generator()
    assert RULES.read_text() == gen.rules_file(), "run `python deploy/monitoring/generate.py`"
    assert PROMETHEUS_RULE.read_text() == gen.prometheus_rule_file(), "run `python deploy/monitoring/generate.py`"
    rule = load_yaml(PROMETHEUS_RULE)
    assert (rule["apiVersion"], rule["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    assert rule["spec"]["groups"] == load_yaml(RULES)["groups"], "the PrometheusRule holds the same rules"
    listed = load_yaml(K8S_MONITORING / "kustomization.yaml")["resources"]
    assert PROMETHEUS_RULE.name in listed


def test_promtool_checks_both_rule_files(tmp_path: Path) -> None:
    spec_only = tmp_path / "prometheusrule-spec.yaml"
    spec_only.write_text(yaml.safe_dump(load_yaml(PROMETHEUS_RULE)["spec"]))
    for path in (RULES, spec_only):
        result = subprocess.run([promtool(), "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "SUCCESS" in result.stdout


def test_promtool_unit_tests_of_the_alerts_pass() -> None:
    result = subprocess.run([promtool(), "test", "rules", str(RULE_TESTS)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_alerts_cover_errors_latency_redis_and_readiness() -> None:
    alerts = {rule["alert"]: rule for rule in rules() if "alert" in rule}
    assert {
        "PatienceApplyMoveErrorBudgetBurn",
        "PatienceApplyMoveLatencyBudgetBurn",
        "PatienceHighErrorRatio",
        "PatienceApplyMoveLatencyHigh",
        "PatienceRedisUnavailable",
        "PatienceReadinessFlapping",
    } <= set(alerts)
    windows = {r["labels"]["long_window"] for r in rules() if r.get("alert") == "PatienceApplyMoveErrorBudgetBurn"}
    assert windows == {"1h", "6h", "1d", "3d"}, "multi-window burn-rate alerts"
    for rule in rules():
        if "alert" in rule:
            assert rule["labels"]["severity"] in {"page", "ticket"}
            assert rule["annotations"]["summary"] and rule["annotations"]["description"]


# --------------------------------------------------------------------------- every metric name is exported


def exported() -> dict[str, set[str]]:
    """Every series name the service's registry can export, with its label names.

    Read from the registry that /metrics serves: the families and their types from ``collect()``, the label
    names from the metric objects registered in it (``service.observe.metrics`` and the process collector).
    """
    importlib.import_module("service.server")  # registers whatever the server imports
    labels = declared_labels()
    for value in vars(metrics).values():
        if isinstance(value, prometheus_client.metrics.MetricWrapperBase):
            for family in value.describe():
                assert family.name in labels, f"{family.name}: declared in a way declared_labels() cannot read"
    names: dict[str, set[str]] = {}
    for family in prometheus_client.REGISTRY.collect():
        own = labels.get(family.name, {s.name: set(s.labels) for s in family.samples}.get(family.name, set()))
        suffixes = {
            "counter": ["_total", "_created"],
            "histogram": ["_bucket", "_count", "_sum", "_created"],
            "gauge": [""],
            "summary": ["", "_count", "_sum", "_created"],
        }.get(family.type, [""])
        for suffix in suffixes:
            names[family.name + suffix] = own | ({"le"} if suffix == "_bucket" else set())
        for sample in family.samples:
            names.setdefault(sample.name, set(sample.labels))
    return names


def declared_labels() -> dict[str, set[str]]:
    """Each metric that ``service.observe.metrics`` declares (its family's name) with its label names, read from
    the declarations themselves: prometheus_client keeps a metric's label names to itself."""
    kinds = {"Counter", "Gauge", "Histogram", "Summary"}
    out: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(Path(metrics.__file__).read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in kinds:
            name = ast.literal_eval(node.args[0])
            given = node.args[2] if len(node.args) > 2 else None
            given = next((k.value for k in node.keywords if k.arg == "labelnames"), given)
            out[name.removesuffix("_total") if node.func.id == "Counter" else name] = (
                set(ast.literal_eval(given)) if given is not None else set()
            )
    return out


def recorded() -> set[str]:
    return {rule["record"] for rule in rules() if "record" in rule}


_KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan"}


def series_in(expr: str) -> list[tuple[str, set[str]]]:
    """The metric names a PromQL expression selects, each with the label names its matchers and groupings use."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\[[^\]]*\]", "", text)
    grouped = set()
    for clause in re.findall(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)", text):
        grouped |= {label.strip() for label in clause.split(",") if label.strip()}
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    found = []
    for match in re.finditer(r"\b([a-zA-Z_:][\w:]*)(?![\w:])\s*(\{[^}]*\})?(?!\s*[({])", text):
        name, matchers = match[1], match[2] or ""
        if name.lower() in _KEYWORDS:
            continue
        used = set(re.findall(r"(\w+)\s*(?:=~|!~|!=|=)", matchers))
        found.append((name, used | grouped))
    return found


def test_series_in_reads_names_and_labels() -> None:
    got = series_in('histogram_quantile(0.99, sum by (le) (rate(a_bucket{m="x",c=~"A|B"}[5m]))) > 0.1 and b:rec')
    assert got == [("a_bucket", {"m", "c", "le"}), ("b:rec", {"le"})]
    assert series_in("changes(up_like[15m]) > 4") == [("up_like", set())]


def expressions() -> list[tuple[str, str]]:
    out = [(f"rules.yaml {rule.get('alert') or rule.get('record')}", str(rule["expr"])) for rule in rules()]
    dashboard = json.loads(DASHBOARD.read_text())
    for panel in dashboard["panels"]:
        out += [(f"dashboard panel {panel['title']!r}", target["expr"]) for target in panel["targets"]]
    return out


def test_every_query_names_a_metric_the_service_exports_with_its_labels() -> None:
    names, records = exported(), recorded()
    assert "grpc_server_handled_total" in names and "process_cpu_seconds_total" in names
    for where, expr in expressions():
        series = series_in(expr)
        assert series, f"{where}: no metric in {expr!r}"
        for name, labels in series:
            if name in records:
                continue
            assert name in names, f"{where} names {name}, which the service does not export"
            unknown = labels - names[name] - TARGET_LABELS - {"le"}
            assert not unknown, f"{where}: {name} has no label {sorted(unknown)} (it has {sorted(names[name])})"


def test_a_misspelt_metric_or_label_is_caught() -> None:
    names = exported()
    assert "grpc_server_handled" not in names  # the counter's samples end in _total
    (name, labels), *_ = series_in('sum(rate(grpc_server_handled_total{code="OK"}[5m]))')
    assert labels - names[name] - TARGET_LABELS == {"code"}, "grpc_server_handled_total's label is grpc_code"


def test_dashboard_is_a_grafana_dashboard() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] and dashboard["title"] and isinstance(dashboard["schemaVersion"], int)
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids)), "panel ids are unique"
    for panel in dashboard["panels"]:
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        assert set(panel["gridPos"]) == {"h", "w", "x", "y"} and panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24
        refs = [target["refId"] for target in panel["targets"]]
        assert refs and len(refs) == len(set(refs)) and all(t["expr"].strip() for t in panel["targets"])


# ------------------------------------------------------------------------------------------ health gauges


def sample(name: str) -> float | None:
    value = prometheus_client.REGISTRY.get_sample_value(name)
    return None if value is None else float(value)


def wait_for(name: str, value: float, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while sample(name) != value:
        assert time.monotonic() < deadline, f"{name} stayed {sample(name)}, not {value}"
        time.sleep(0.05)


def test_health_gauges_follow_redis_going_away() -> None:
    node = redis_support.start_redis_process()
    server = ServerThread(settings_for(node.url), health_interval=0.1).start()
    try:
        wait_for("patience_store_up", 1.0)
        wait_for("patience_ready", 1.0)
        node.stop()
        wait_for("patience_store_up", 0.0)
        wait_for("patience_ready", 0.0)
        with grpc.insecure_channel(server.address) as channel:
            status = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="patience.v1.PatienceService"), timeout=5
            )
        assert status.status == health_pb2.HealthCheckResponse.NOT_SERVING, "the gauge says what the probe sees"
    finally:
        server.stop(grace=0)
        node.stop()


def test_readiness_gauge_drops_when_the_server_stops(redis_url: str) -> None:
    server = ServerThread(settings_for(redis_url), health_interval=0.1).start()
    try:
        wait_for("patience_ready", 1.0)
    finally:
        server.stop()
    assert sample("patience_ready") == 0.0 and sample("patience_store_up") == 1.0
