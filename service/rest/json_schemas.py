"""JSON Schemas of the API's messages and enums, as protobuf's JSON mapping writes them: int64 as a decimal string,
bytes as base64, enums by name, the well-known types in their JSON forms.

The components of the OpenAPI document (``service.rest.openapi``), apart from it because they follow the
descriptors and the JSON mapping alone, not the routes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

JsonObject = dict[str, Any]

_INT32 = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32}
_UINT32 = {FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32}
_INT64 = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64}
_UINT64 = {FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64}
_FLOAT = {FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE}

#: Well-known types whose JSON form is not an object of their fields.
_WKT: dict[str, JsonObject] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]{1,9})?s$"},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.Empty": {"type": "object", "additionalProperties": False},
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array"},
    "google.protobuf.Any": {
        "type": "object",
        "properties": {"@type": {"type": "string"}},
        "required": ["@type"],
        "additionalProperties": True,
    },
    "google.protobuf.BoolValue": {"type": "boolean"},
    "google.protobuf.StringValue": {"type": "string"},
    "google.protobuf.BytesValue": {"type": "string", "contentEncoding": "base64"},
}


def is_repeated(f: FieldDescriptor) -> bool:
    """A repeated field (a map is one too): a JSON array (or object) of its values, never a query parameter."""
    return bool(f.is_repeated)


class Schemas:
    """Component schemas for messages and enums, named by their short name unless two collide."""

    def __init__(self, comments: Mapping[str, str]) -> None:
        self.comments = comments
        self.components: dict[str, JsonObject] = {}
        self._names: dict[str, str] = {}

    def _name(self, full_name: str) -> str:
        if full_name not in self._names:
            short = full_name.rsplit(".", 1)[-1]
            taken = set(self._names.values())
            self._names[full_name] = short if short not in taken else full_name
        return self._names[full_name]

    def ref(self, full_name: str) -> JsonObject:
        return {"$ref": f"#/components/schemas/{self._name(full_name)}"}

    def enum(self, desc: EnumDescriptor) -> JsonObject:
        name = self._name(desc.full_name)
        if name not in self.components:
            schema: JsonObject = {"type": "string", "enum": [v.name for v in desc.values]}
            lines = [self.comments.get(desc.full_name, "")]
            for v in desc.values:
                note = self.comments.get(f"{desc.full_name}.{v.name}")
                if note:
                    lines.append(f"- `{v.name}`: {note}")
            text = "\n".join(x for x in lines if x)
            if text:
                schema["description"] = text
            self.components[name] = schema
        return self.ref(desc.full_name)

    def message(self, desc: Descriptor) -> JsonObject:
        if desc.full_name in _WKT:
            return dict(_WKT[desc.full_name])
        if desc.full_name.startswith("google.protobuf.") and desc.full_name.endswith("Value"):
            return self.scalar(desc.fields_by_name["value"])  # Int64Value, DoubleValue ...
        name = self._name(desc.full_name)
        if name not in self.components:
            self.components[name] = {}  # reserve first: messages may be recursive
            self.components[name] = self.object_schema(desc, exclude=())
        return self.ref(desc.full_name)

    def object_schema(self, desc: Descriptor, exclude: Iterable[str]) -> JsonObject:
        skip = set(exclude)
        properties: JsonObject = {}
        for f in desc.fields:
            if f.name in skip:
                continue
            properties[f.json_name] = self.field(f)
        schema: JsonObject = {"type": "object", "properties": properties, "additionalProperties": False}
        exclusive = [
            [f.json_name for f in oneof.fields if f.name not in skip]
            for oneof in desc.oneofs
            if not (len(oneof.fields) == 1 and oneof.name.startswith("_"))  # proto3 `optional`
        ]
        pairs = [[a, b] for group in exclusive for i, a in enumerate(group) for b in group[i + 1 :]]
        if pairs:
            schema["not"] = {"anyOf": [{"required": p} for p in pairs]}
        text = self.comments.get(desc.full_name, "")
        for oneof in desc.oneofs:
            names = [f.json_name for f in oneof.fields if f.name not in skip]
            if len(names) > 1:
                text += ("\n\n" if text else "") + f"At most one of {', '.join(f'`{n}`' for n in names)}."
        if text:
            schema["description"] = text
        return schema

    def field(self, f: FieldDescriptor) -> JsonObject:
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            value = f.message_type.fields_by_name["value"]
            schema: JsonObject = {"type": "object", "additionalProperties": self.single(value)}
        elif is_repeated(f):
            schema = {"type": "array", "items": self.single(f)}
        else:
            schema = self.single(f)
        text = self.comments.get(f.full_name)
        if text:
            if "$ref" in schema:  # 3.1 allows siblings of $ref; keep the reference intact
                schema = {**schema, "description": text}
            else:
                schema["description"] = text
        return schema

    def single(self, f: FieldDescriptor) -> JsonObject:
        if f.message_type is not None:
            return self.message(f.message_type)
        if f.enum_type is not None:
            return self.enum(f.enum_type)
        return self.scalar(f)

    @staticmethod
    def scalar(f: FieldDescriptor) -> JsonObject:
        t = f.type
        if t == FieldDescriptor.TYPE_BOOL:
            return {"type": "boolean"}
        if t == FieldDescriptor.TYPE_STRING:
            return {"type": "string"}
        if t == FieldDescriptor.TYPE_BYTES:
            return {"type": "string", "contentEncoding": "base64", "format": "byte"}
        if t in _INT32:
            return {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
        if t in _UINT32:
            return {"type": "integer", "format": "uint32", "minimum": 0, "maximum": 2**32 - 1}
        if t in _INT64 or t in _UINT64:
            low, high = (0, 2**64 - 1) if t in _UINT64 else (-(2**63), 2**63 - 1)
            pattern = r"^[0-9]{1,20}$" if t in _UINT64 else r"^-?[0-9]{1,19}$"
            return {
                # Canonical JSON writes 64-bit integers as strings; a number is accepted on input.
                "oneOf": [{"type": "string", "pattern": pattern}, {"type": "integer", "minimum": low, "maximum": high}],
                "format": "int64" if t in _INT64 else "uint64",
            }
        if t in _FLOAT:
            return {
                "oneOf": [{"type": "number"}, {"type": "string", "enum": ["NaN", "Infinity", "-Infinity"]}],
                "format": "double" if t == FieldDescriptor.TYPE_DOUBLE else "float",
            }
        return {}
