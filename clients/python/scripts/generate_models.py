"""Generates src/prospect_enrichment/models.py from the API's /openapi.json (its components/schemas).

    python scripts/generate_models.py                      this checkout's document (api/openapi.ts, through node)
    python scripts/generate_models.py http://…/openapi.json   a running server's document (or a file path)
    … --check                                              exit 1 when the committed file differs

One TypedDict per object schema, named as in the document; a nested object is named
after its parent and property (ReplyMeta.prospect → ReplyMetaProspect). Optional keys
are NotRequired and the module has no ``from __future__ import annotations``, so that
``__required_keys__`` and ``__optional_keys__`` are right at run time (Python 3.10+).
"""

from __future__ import annotations

import json
import keyword
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TARGET = HERE.parent / "src" / "prospect_enrichment" / "models.py"
REPO_ROOT = HERE.parent.parent.parent
PRIMITIVES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}

Schema = dict[str, Any]


def load_document(source: str | None) -> Schema:
    if source is None:
        printed = subprocess.run(
            ["node", "--input-type=module", "-e",
             "const { openApiDocument } = await import('./api/openapi.ts'); process.stdout.write(JSON.stringify(openApiDocument()));"],
            cwd=REPO_ROOT, check=True, capture_output=True, text=True,
        ).stdout
        return json.loads(printed)
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source) as response:
            return json.loads(response.read())
    return json.loads(Path(source).read_text())


def pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_") if part)


class Generator:
    def __init__(self, schemas: dict[str, Schema]) -> None:
        self.schemas = schemas
        self.blocks: dict[str, str] = {}  # name → source, in dependency order
        self.in_progress: set[str] = set()

    def define(self, name: str, schema: Schema) -> str:
        """Emits `name` (after everything it refers to) and returns it."""
        if name in self.blocks:
            return name
        if name in self.in_progress:
            raise ValueError(f"{name} refers to itself: not supported")
        self.in_progress.add(name)
        if schema.get("type") == "object" and "properties" in schema:
            source = self.typed_dict(name, schema)
        else:
            source = f"{name}: TypeAlias = {self.annotation(schema, name)}\n"
            if schema.get("description"):
                source += f'"""{docstring(schema["description"])}"""\n'
        self.in_progress.discard(name)
        self.blocks[name] = source
        return name

    def typed_dict(self, name: str, schema: Schema) -> str:
        required = set(schema.get("required", []))
        lines = [f"class {name}(TypedDict):"]
        if schema.get("description"):
            lines.append(f'    """{docstring(schema["description"])}"""\n')
        for key, each in schema["properties"].items():
            if not key.isidentifier() or keyword.iskeyword(key):
                raise ValueError(f"{name}.{key} is not a Python identifier: not supported")
            annotation = self.annotation(each, name + pascal(key))
            lines.append(f"    {key}: {annotation if key in required else f'NotRequired[{annotation}]'}")
            if each.get("description"):
                lines.append(f'    """{docstring(each["description"])}"""')
        return "\n".join(lines) + "\n"

    def annotation(self, schema: Schema, name_if_object: str) -> str:
        if "$ref" in schema:
            target = schema["$ref"].removeprefix("#/components/schemas/")
            return self.define(target, self.schemas[target])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return union([self.annotation(part, name_if_object) for part in schema[key]])
        if "const" in schema:
            return f"Literal[{json.dumps(schema['const'])}]"
        if "enum" in schema:
            return f"Literal[{', '.join(json.dumps(value) for value in schema['enum'])}]"
        types = schema.get("type")
        if isinstance(types, list):
            return union([self.annotation({**schema, "type": each}, name_if_object) for each in types])
        if types == "array":
            return f"list[{self.annotation(schema.get('items', {}), name_if_object)}]"
        if types == "object":
            return self.define(name_if_object, schema) if "properties" in schema else "dict[str, Any]"
        if types in PRIMITIVES:
            return PRIMITIVES[types]
        return "Any"


def docstring(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def union(members: list[str]) -> str:
    # `None` last and once, as a reader writes it: `str | None`.
    ordered = [each for each in dict.fromkeys(members) if each != "None"] + (["None"] if "None" in members else [])
    return ordered[0] if len(ordered) == 1 else f"Union[{', '.join(ordered)}]"


def render(document: Schema) -> str:
    schemas = document["components"]["schemas"]
    generator = Generator(schemas)
    for name, schema in schemas.items():
        generator.define(name, schema)
    header = (
        f'"""The API\'s request, reply and webhook shapes: GENERATED by scripts/generate_models.py from /openapi.json\n'
        f'(API {document["info"]["version"]}). Do not edit: run `python scripts/generate_models.py` in clients/python.\n\n'
        'Replies are plain JSON objects typed by these TypedDicts. No `from __future__ import annotations` here:\n'
        'NotRequired must be seen at run time for `__required_keys__` / `__optional_keys__` to be right.\n"""\n\n'
        "from typing import Any, Literal, Union\n\n"
        "from typing_extensions import NotRequired, TypeAlias, TypedDict\n\n"
        f"__all__ = {json.dumps(sorted(generator.blocks))}\n"
    )
    return header + "".join(f"\n\n{block}" for block in generator.blocks.values())


def main(argv: list[str]) -> int:
    check = "--check" in argv
    sources = [arg for arg in argv if arg != "--check"]
    generated = render(load_document(sources[0] if sources else None))
    if check:
        if not TARGET.exists() or TARGET.read_text() != generated:
            sys.stderr.write("clients/python/src/prospect_enrichment/models.py is stale: /openapi.json changed. Run `python scripts/generate_models.py` in clients/python.\n")
            return 1
        print("clients/python/src/prospect_enrichment/models.py matches /openapi.json")
        return 0
    TARGET.write_text(generated)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
