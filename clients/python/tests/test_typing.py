"""The client's types, checked with `mypy --strict` as a caller's code is, and at run time."""

import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import httpx
from typing_extensions import is_typeddict

from prospect_enrichment import models

HERE = Path(__file__).parent
CLIENT_DIR = HERE.parent
MARKER = re.compile(r"# expect: (?P<codes>[a-z-]+(?:, [a-z-]+)*)$")
ERROR = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<message>.*)  \[(?P<code>[a-z-]+)\]$")


def mypy_errors(*files: Path) -> dict[tuple[str, int], set[str]]:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-color-output", "--cache-dir", str(CLIENT_DIR / ".mypy_cache"), *map(str, files)],
        cwd=CLIENT_DIR, capture_output=True, text=True,
    )
    found: dict[tuple[str, int], set[str]] = {}
    for line in result.stdout.splitlines():
        if match := ERROR.match(line):
            found.setdefault((Path(match["path"]).name, int(match["line"])), set()).add(match["code"])
    assert result.returncode in (0, 1), result.stdout + result.stderr  # 2: mypy itself failed
    return found


def test_mypy_strict_reports_each_wrong_usage_and_passes_the_right_ones() -> None:
    wrong, right = HERE / "typing_cases" / "wrong_usages.py", HERE / "typing_cases" / "right_usages.py"
    expected = {
        (wrong.name, number): set(marker["codes"].split(", "))
        for number, text in enumerate(wrong.read_text().splitlines(), start=1)
        if (marker := MARKER.search(text))
    }
    assert len(expected) >= 15
    assert mypy_errors(wrong, right) == expected


def test_mypy_strict_passes_the_package_itself() -> None:
    assert mypy_errors(CLIENT_DIR / "src" / "prospect_enrichment") == {}


def typed_dicts(schema: dict[str, Any], cls: type, document: dict[str, Any], at: str) -> list[tuple[str, dict[str, Any], type]]:
    """This schema and class, and each nested object schema beside the TypedDict its key holds."""
    found = [(at, schema, cls)]
    hints = get_type_hints(cls)
    for key, each in schema["properties"].items():
        nested = resolve(each, document)
        inner = [arg for arg in flatten(hints[key]) if is_typeddict(arg)]
        if nested is not None and inner:
            found += typed_dicts(nested, inner[0], document, f"{at}.{key}")
    return found


def resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any] | None:
    if "$ref" in schema:
        return resolve(document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]], document)
    if "properties" in schema:
        return schema
    for key in ("anyOf", "oneOf"):
        for part in schema.get(key, []):
            if (found := resolve(part, document)) is not None:
                return found
    return resolve(schema["items"], document) if "items" in schema else None


def flatten(hint: Any) -> list[Any]:
    return [inner for arg in get_args(hint) for inner in flatten(arg)] if get_origin(hint) in (Union, list) else [hint]


def test_required_and_optional_keys_are_right_at_run_time(stack: dict[str, Any]) -> None:
    document = httpx.get(f"{stack['apiUrl']}/openapi.json").json()
    checked = []
    for name, schema in document["components"]["schemas"].items():
        if "properties" not in schema:
            continue
        for at, each, cls in typed_dicts(schema, getattr(models, name), document, name):
            required = set(each.get("required", []))
            assert (at, cls.__required_keys__) == (at, required)
            assert (at, cls.__optional_keys__) == (at, set(each["properties"]) - required)
            checked.append(at)
    assert {"CompletedReply", "Prospect", "Company", "DecisionMaker", "ReplyMeta", "CompletedReply.data.prospect", "ResearchCompletedEvent.data._meta.prospect"} <= set(checked)
    assert models.CompletedReply.__optional_keys__ == {"_meta"}
    assert models.ReplyMetaProspect.__optional_keys__ == {"reason"}
    assert models.ResearchRequest.__required_keys__ == {"email"}


def test_models_are_generated_from_the_running_servers_document(stack: dict[str, Any]) -> None:
    result = subprocess.run(
        [sys.executable, "scripts/generate_models.py", "--check", f"{stack['apiUrl']}/openapi.json"], cwd=CLIENT_DIR, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "matches" in result.stdout
