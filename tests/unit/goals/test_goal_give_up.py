"""A goal's task is the goal's to end (agency.execution.task_endings.TaskEndings.give_up): held
again and again before a step of it is done, or its way under the same water, a drive tick's
goal-bound task is never failed by the executor's give-ups; a plain one of the same origin is."""

from __future__ import annotations

from agency.planning.tasks.models import NewTask, TaskOrigin, TaskStatus
from tests.unit.goals.test_safe_stop_budget import Env, _work


def test_a_goal_bound_task_of_a_drive_tick_is_never_given_up(tmp_path) -> None:
    env = Env(tmp_path, {"steps": [_work("p0", ticks=3), _work("p1", ticks=3)]})
    try:
        env.tasks.finalize_new_task(env.task_id, TaskOrigin(kind="drive-tick"))
        env.preempt()
        assert env.ex.give_up(env.task_id, "held 6 times in a row") is False
        assert env.tasks.get_task(env.task_id).status is TaskStatus.paused
        # the same origin without a goal: failed with the reason
        plain = env.tasks.add_task(NewTask(title="a wall", type="build", parameters={"target": "wall"})).id
        env.tasks.finalize_new_task(plain, TaskOrigin(kind="drive-tick"))
        env.tasks.set_status(plain, TaskStatus.active)
        env.tasks.set_status(plain, TaskStatus.paused)
        assert env.ex.give_up(plain, "held 6 times in a row") is True
        task = env.tasks.get_task(plain)
        assert task.status is TaskStatus.failed and task.metadata.solver["failureReason"] == "held 6 times in a row"
    finally:
        env.close()
