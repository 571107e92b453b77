import asyncio

from bot.scheduler import JobSpec, Scheduler


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
