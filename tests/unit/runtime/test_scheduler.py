import asyncio
import logging

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobSubmissionEvent
from loguru import logger

from bot.runtime.logs import CONSOLE, line_format
from bot.runtime.scheduler import JobSpec, Scheduler


def test_a_failing_job_is_counted_and_never_kills_the_scheduler():
    calls = []

    def boom():
        calls.append(1)
        raise RuntimeError("bad tick")

    s = Scheduler()
    s.add(JobSpec("boom", boom, interval_s=60))
    s.add(JobSpec("ok", lambda: calls.append(2), interval_s=60))

    async def go():
        assert await s.run_once("boom") is False
        assert await s.run_once("ok") is True
        assert await s.run_once("boom") is False

    asyncio.run(go())
    assert s.jobs["boom"].stats.errors == 2 and s.jobs["boom"].stats.runs == 2
    assert "bad tick" in s.jobs["boom"].stats.last_error
    assert s.jobs["ok"].stats.errors == 0 and calls == [1, 2, 1]


def test_a_job_body_is_bounded_by_its_timeout():
    async def slow():
        await asyncio.sleep(3600)

    s = Scheduler()
    s.add(JobSpec("slow", slow, interval_s=60, timeout_s=0.01))
    assert asyncio.run(s.run_once("slow")) is False
    assert s.jobs["slow"].stats.timeouts == 1


def test_jobs_are_registered_with_max_instances_1_and_coalesce():
    s = Scheduler()
    s.add(JobSpec("tick", lambda: None, interval_s=5))
    s.add(JobSpec("off", lambda: None, interval_s=5, enabled=False))
    job = s._aps.get_job("tick")
    assert job.max_instances == 1 and job.coalesce is True
    assert s._aps.get_job("off") is None and "off" in s.jobs


def _capture():
    records = []
    sink = logger.add(lambda m: records.append((m.record["level"].name, m.record["message"])), level="DEBUG")
    return records, lambda: logger.remove(sink)


def test_a_skipped_run_is_debug_and_counted_once_a_minute_at_info():
    s = Scheduler()
    s.add(JobSpec("executor", lambda: None, interval_s=2))
    s.add(JobSpec("keepalive", lambda: None, interval_s=10))
    records, done = _capture()
    try:
        for _ in range(3):
            s.on_skipped(JobSubmissionEvent(EVENT_JOB_MAX_INSTANCES, "executor", "default", []))
        s.on_skipped(JobSubmissionEvent(EVENT_JOB_MISSED, "keepalive", "default", []))
        assert [lvl for lvl, _ in records] == ["DEBUG"] * 4
        s.log_summaries()
        s.log_summaries()  # nothing skipped since: no line
    finally:
        done()
    # log_summaries also flushes every live rate-limited line (agency.log_rate.flush_all):
    # an earlier test's stream, not yet garbage-collected, may add its own summary.
    info = [m for lvl, m in records if lvl == "INFO" and m.startswith("[Scheduler]")]
    assert info == ["[Scheduler] skipped runs in the last 60 s: executor=3 keepalive=1"]
    assert s.jobs["executor"].stats.skipped == 3 and s.jobs["keepalive"].stats.skipped == 1


def test_apschedulers_own_skip_warnings_are_filtered_and_others_kept():
    Scheduler()
    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    aps, root = logging.getLogger("apscheduler.scheduler"), logging.getLogger("apscheduler")
    handler = Keep()
    root.addHandler(handler)  # both APScheduler loggers propagate here
    try:
        aps.warning('Execution of job "%s" skipped: maximum number of running instances reached (%d)', "x", 1)
        logging.getLogger("apscheduler.executors.default").warning('Run time of job "%s" was missed by %s', "x", 3)
        aps.warning("something else")
    finally:
        root.removeHandler(handler)
    assert seen == ["something else"]


def test_the_summary_job_is_scheduled_once_a_minute_on_start():
    async def go():
        s = Scheduler()
        s.start()
        try:
            job = s._aps.get_job("_log_summaries")
            assert job is not None and job.trigger.interval.total_seconds() == 60
            assert "_log_summaries" not in s.jobs  # not one of the daemon's jobs
        finally:
            s.shutdown()

    asyncio.run(go())


def test_a_run_cut_short_by_the_daemon_stopping_ends_quietly(caplog):
    entered = asyncio.Event()

    async def long_tick():
        entered.set()
        await asyncio.sleep(3600)

    s = Scheduler()
    s.add(JobSpec("long", long_tick, interval_s=0.01, timeout_s=7200))

    async def go():
        s.start()
        await asyncio.wait_for(entered.wait(), 5)
        s.shutdown()  # then asyncio.run cancels the run still in its body, as at SIGTERM

    with caplog.at_level("DEBUG", logger="apscheduler"):
        asyncio.run(go())
    assert entered.is_set()
    assert not [r for r in caplog.records if r.levelname == "ERROR"], [r.getMessage() for r in caplog.records]


def test_a_fleet_bot_s_job_names_its_bot_in_every_line_it_and_its_tasks_log():
    """The console format gets the bot's column from the job's context, also for a task the
    job started that logs after the job's run ended; a daemon-wide job's line has none."""
    out: list[str] = []
    sink = logger.add(out.append, format=line_format(CONSOLE), level="INFO")
    started: list[asyncio.Task] = []

    async def executor():
        logger.info("[Executor] claimed task=t1")

        async def run_task():
            await asyncio.sleep(0)
            logger.info("[Executor] completed task=t1")

        started.append(asyncio.ensure_future(run_task()))

    async def go():
        s = Scheduler()
        s.add(JobSpec("executor@alice", executor, interval_s=60, bot="alice"))
        s.add(JobSpec("planning", lambda: logger.info("[Thought-to-task] converted"), interval_s=60))
        assert await s.run_once("executor@alice") is True
        assert await s.run_once("planning") is True
        await started[0]

    try:
        asyncio.run(go())
    finally:
        logger.remove(sink)
    assert sorted(line.split(" | ", 2)[2].rstrip("\n") for line in out) == [
        "[Thought-to-task] converted",
        "alice | [Executor] claimed task=t1",
        "alice | [Executor] completed task=t1",
    ]
