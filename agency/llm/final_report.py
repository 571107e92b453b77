"""agent__final_report (docs/contracts.md LLM-6): the tool schema with `format` forced
by `const`, raw|base64 encoding, content_json validated against the caller's JSON schema
with a small repair loop, text fallback and synthetic failure reports. Status is always
set here, never taken from the model."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

import json_repair
from jsonschema import Draft202012Validator
from loguru import logger

from agency.llm.messages import ToolSchema

FINAL_REPORT_TOOL = "agent__final_report"
REPAIR_ROUNDS = 3
ANY_OBJECT: dict[str, Any] = {"type": "object"}


def final_report_schema(expected_format: str, output_schema: dict[str, Any] | None) -> ToolSchema:
    props: dict[str, Any] = {
        "format": {"type": "string", "const": expected_format},
        "encoding": {"type": "string", "enum": ["raw", "base64"], "default": "raw"},
        "metadata": {"type": "object"},
    }
    if expected_format == "json":
        props["content_json"] = output_schema or ANY_OBJECT
        required = ["format", "content_json"]
    else:
        props["report_content"] = {"type": "string", "description": f"the answer, as {expected_format}"}
        required = ["format", "report_content"]
    return ToolSchema(
        name=FINAL_REPORT_TOOL,
        description="Deliver the final answer and end the session. Call it exactly once, when done.",
        parameters={"type": "object", "properties": props, "required": required},
    )


@dataclass(frozen=True)
class ReportOutcome:
    report: dict[str, Any] | None
    error: str | None = None
    schema_error: bool = False  # content_json failed the schema (CLI exit 5)


def _report(fmt: str, ts: int, metadata: Any, **content: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"status": "success", "format": fmt, **content, "ts": ts}
    if isinstance(metadata, dict) and metadata:
        out["metadata"] = metadata
    return out


def _loads_lenient(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json_repair.loads(text) if "{" in text or "[" in text else None


def validate_json(value: Any, schema: dict[str, Any] | None) -> tuple[Any, str | None]:
    """Validate, parsing stringified nested JSON fields for up to REPAIR_ROUNDS rounds."""
    if isinstance(value, str):
        value = _loads_lenient(value)
    if not isinstance(value, (dict, list)):
        return None, "content_json is not a JSON object"
    validator = Draft202012Validator(schema or ANY_OBJECT)
    for _ in range(REPAIR_ROUNDS + 1):
        errors = list(validator.iter_errors(value))
        if not errors:
            return value, None
        changed = False
        for err in errors:
            if isinstance(err.instance, str) and err.validator == "type":
                parsed = _loads_lenient(err.instance)
                if isinstance(parsed, (dict, list)) and _set_path(value, list(err.absolute_path), parsed):
                    changed = True
        if not changed:
            break
    return None, "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:5])


def _set_path(root: Any, path: list[Any], new: Any) -> bool:
    if not path:
        return False
    node = root
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return True


def process_final_report(
    args: dict[str, Any], expected_format: str, output_schema: dict[str, Any] | None, ts: int
) -> ReportOutcome:
    fmt = args.get("format")
    if fmt != expected_format:
        logger.warning("final report format {!r} normalized to expected {!r}", fmt, expected_format)
    encoding = args.get("encoding") or "raw"
    if encoding not in ("raw", "base64"):
        return ReportOutcome(None, f"unknown encoding {encoding!r}")
    content = args.get("report_content")
    if content is not None and not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)
    if encoding == "base64" and content is not None:
        try:
            content = base64.b64decode(content, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as e:
            return ReportOutcome(None, f"report_content is not valid base64 UTF-8: {e}")
    metadata = args.get("metadata")
    if expected_format == "json":
        raw = args.get("content_json", content)
        if raw is None:
            return ReportOutcome(None, "content_json is required for format json", schema_error=True)
        value, error = validate_json(raw, output_schema)
        if error:
            return ReportOutcome(None, f"content_json failed schema validation: {error}", schema_error=True)
        return ReportOutcome(_report(expected_format, ts, metadata, content_json=value))
    if content is None:
        return ReportOutcome(None, "report_content is required")
    return ReportOutcome(_report(expected_format, ts, metadata, content=content))


def text_fallback(text: str, expected_format: str, output_schema: dict[str, Any] | None, ts: int) -> ReportOutcome:
    """Final turn answered in plain text: that text is the report (model-provided: success)."""
    if expected_format == "json":
        value, error = validate_json(text, output_schema)
        if error:
            return ReportOutcome(None, f"text answer is not valid JSON for the schema: {error}", schema_error=True)
        return ReportOutcome(_report(expected_format, ts, {"source": "text_fallback"}, content_json=value))
    return ReportOutcome(_report(expected_format, ts, {"source": "text_fallback"}, content=text.strip()))


def synthetic_failure(reason: str, message: str, expected_format: str, ts: int) -> dict[str, Any]:
    return {
        "status": "failure",
        "format": expected_format,
        "content": message,
        "metadata": {"reason": reason},
        "ts": ts,
    }
