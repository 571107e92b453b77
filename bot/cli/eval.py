"""`mcbot eval`: the rolling scenario eval harness (docs/contracts.md EVAL-1..7, PROPERTY-1..3) and
`mcbot eval report RUN_DIR...`.

    mcbot eval --suite config/suites/idle-v1.jsonl --profile balanced --mode thought_only
    mcbot eval --from-fixture tests/fixtures/taking_damage.jsonl --profile rich --mode end_to_end
    mcbot eval report artifacts/evals/idle-v1/balanced/RUN_A artifacts/evals/idle-v1/rich/RUN_B

Exit codes: 0 PASS, 1 FAIL (a scenario property failed), 4 invalid arguments or config
(no [[llm.targets]], unknown profile, run dir taken), 5 suite line fails its schema.

Wiring in bot/cli/main.py: `add_eval_commands(sub)` in build_parser and
`COMMANDS["eval"] = cmd_eval`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli import values as val
from bot.cli.exit_codes import EXIT_FAILURE, EXIT_INVALID, EXIT_OK, EXIT_SCHEMA

if TYPE_CHECKING:  # the config loads only when a command runs (`--help` stays fast)
    from bot.config.loader import McbotConfig

PROFILES = ("minimal", "balanced", "rich")


def add_eval_commands(subparsers: Any) -> None:
    ev = subparsers.add_parser("eval", help="judge keep-alive LLM thoughts over a JSONL scenario suite")
    ev.add_argument("--suite", metavar="FILE.jsonl", help="scenario suite (re-read on every run)")
    ev.add_argument("--from-fixture", metavar="FIXTURE.jsonl", help="take scenario frames from a replay recording")
    ev.add_argument("--profile", choices=PROFILES, default="balanced", help="prompt profile (frame composition)")
    ev.add_argument("--mode", choices=("thought_only", "end_to_end"), default="thought_only")
    ev.add_argument("--seed", type=val.integer, default=0, help="fixes scenario start order; recorded in artifacts")
    ev.add_argument(
        "--run-id", type=val.run_id, help="run directory name (default: UTC time, seed and a random suffix)"
    )
    ev.add_argument("--concurrency", type=val.positive_int, default=4, help="scenarios in flight at once (>= 1)")
    ev.add_argument("--out-dir", default="artifacts/evals", help="artifact root (default artifacts/evals)")
    sub = ev.add_subparsers(dest="eval_command", parser_class=type(ev))
    rep = sub.add_parser("report", help="compare eval runs side by side (terminal table + HTML chart)")
    rep.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    rep.add_argument("--html", metavar="FILE", help="HTML report path (default: <first run's suite dir>/report.html)")


def _error(msg: str, code: int) -> int:
    print(f"mcbot: {msg}", file=sys.stderr)
    return code


def cmd_eval(args: argparse.Namespace, cfg: McbotConfig, _loaded: Any = None) -> int:
    if getattr(args, "eval_command", None) == "report":
        return cmd_eval_report(args)
    return cmd_eval_run(args, cfg)


def cmd_eval_run(args: argparse.Namespace, cfg: McbotConfig) -> int:
    from agency.cognition.llm_thoughts import LlmThoughtGenerator
    from agency.eval.fixture import load_fixture_suite
    from agency.eval.runner import RunDirExists, run_eval
    from agency.eval.suite import SuiteInvalid, load_suite
    from agency.perception.replay import ReplayFormatError

    if bool(args.suite) == bool(args.from_fixture):
        return _error("eval needs exactly one of --suite FILE.jsonl or --from-fixture FIXTURE.jsonl", EXIT_INVALID)
    settings = cfg.llm
    if not settings.configured:
        return _error("the LLM is not configured: add an [[llm.targets]] table to mcbot.toml", EXIT_INVALID)
    source = Path(args.suite or args.from_fixture)
    try:
        suite = load_suite(source) if args.suite else load_fixture_suite(source)
    except OSError as e:
        return _error(f"cannot read {source}: {e}", EXIT_INVALID)
    except SuiteInvalid:
        return EXIT_SCHEMA  # the [Eval] suite_invalid line already names path, line and errors
    except ReplayFormatError as e:
        return _error(f"fixture invalid: {e}", EXIT_SCHEMA)
    try:  # the suite is valid: now the artifact root must be writable
        Path(args.out_dir).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return _error(f"error: argument --out-dir: cannot create {args.out_dir}: {e.strerror or e}", EXIT_INVALID)
    try:
        outcome = run_eval(
            suite,
            LlmThoughtGenerator(settings),
            profile=args.profile,
            mode=args.mode,
            seed=args.seed,
            run_id=args.run_id,
            concurrency=args.concurrency,
            out_root=args.out_dir,
        )
    except RunDirExists as e:
        return _error(str(e), EXIT_INVALID)
    print(outcome.out_dir)
    return EXIT_OK if outcome.passed else EXIT_FAILURE


def cmd_eval_report(args: argparse.Namespace) -> int:
    from agency.eval.report import ReportError, load_runs, render_html, render_table

    try:
        runs = load_runs([Path(d) for d in args.run_dirs])
    except ReportError as e:
        return _error(str(e), EXIT_INVALID)
    print(render_table(runs))
    html = Path(args.html) if args.html else Path(args.run_dirs[0]).resolve().parent.parent / "report.html"
    try:
        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(render_html(runs), encoding="utf-8")
    except OSError as e:
        return _error(f"error: argument --html: cannot write {html}: {e.strerror or e}", EXIT_INVALID)
    print(f"HTML report: {html}")
    return EXIT_OK
