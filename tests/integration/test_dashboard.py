"""The web dashboard in a real browser (Debian's Chromium, headless, driven by Playwright):
a job runs, the dashboard shows every vertex of its graph with records counted, its
subtasks, checkpoints and the exception of a restart, the TaskManagers, and cancels the job
from the page. Screenshots go to ``test-artifacts/dashboard/`` (``MILLSTREAM_TEST_ARTIFACTS``
moves them)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_rest_api import Api, _start_job

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 90_000  # a page condition may wait this long on a loaded machine

pytestmark = pytest.mark.timeout(300)


def _artifacts() -> Path:
    root = Path(__file__).resolve().parents[2]
    directory = Path(os.environ.get("MILLSTREAM_TEST_ARTIFACTS", root / "test-artifacts")) / "dashboard"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _count(text: str) -> int:
    match = re.search(r"([\d,]+)", text)
    return int(match.group(1).replace(",", "")) if match else 0


def test_the_dashboard_shows_the_job_and_cancels_it(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: ./scripts/setup.sh installs it"
    shots = _artifacts()
    expect.set_options(timeout=TIMEOUT_MS)
    client = _start_job(tmp_path, "dashboard job", fail_once=True)
    try:
        api = Api(client)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.set_default_timeout(TIMEOUT_MS)
                errors: list[Any] = []
                page.on("pageerror", lambda error: errors.append(error))
                page.goto(api.rest.dashboard_url)  # the printed address: token into the cookie
                assert page.url == api.base + "/"

                # overview: TaskManagers, slots, the running job
                expect(page.locator("#card-taskmanagers .value")).to_have_text("2")
                expect(page.locator("#running-jobs")).to_contain_text("dashboard job")
                page.screenshot(path=str(shots / "overview.png"), full_page=True)

                # the job's graph: every vertex, with records counted
                page.locator("#running-jobs a", has_text="dashboard job").click()
                nodes = page.locator("#job-graph .node")
                expect(nodes).to_have_count(2)
                expect(page.locator("#vertices tbody tr")).to_have_count(2)
                source, keyed = nodes.nth(0), nodes.nth(1)
                expect(source.locator("text.records-out")).to_have_text(re.compile(r"Out: [1-9][\d,]*"))
                expect(keyed.locator("text.records-in")).to_have_text(re.compile(r"In: [1-9][\d,]*"))
                expect(source).to_contain_text("Parallelism: 2")
                expect(keyed).to_contain_text("Watermark:")
                out_text = "document.querySelector('#job-graph .node text.records-out').textContent"
                page.wait_for_function(f"() => /\\/s\\)/.test({out_text})")  # a refresh later: rates
                first = _count(keyed.locator("text.records-in").text_content() or "")
                page.wait_for_function(
                    "n => parseInt(document.querySelectorAll('#job-graph .node')[1]"
                    ".querySelector('text.records-in').textContent.replace(/[^\\d]/g, '')) > n",
                    arg=first,
                )  # auto-refresh: the counts grow without a reload
                page.screenshot(path=str(shots / "job-graph.png"), full_page=True)

                # a vertex's subtasks
                keyed.click()
                expect(page.locator("#subtasks tbody tr")).to_have_count(2)
                expect(page.locator("#subtasks")).to_contain_text("RUNNING")
                # each subtask's share of a second back-pressured / idle / busy (Flink's tab)
                expect(page.locator("#subtasks thead")).to_contain_text("Backpressured / Idle / Busy")
                expect(page.locator("#subtasks .time-shares").first).to_have_text(
                    re.compile(r"^\d+% / \d+% / \d+%$")
                )
                page.screenshot(path=str(shots / "subtasks.png"), full_page=True)

                # checkpoints
                page.locator("#tab-checkpoints").click()
                expect(page.locator("#checkpoint-history")).to_contain_text("COMPLETED")
                expect(page.locator("#checkpoint-config")).to_contain_text("exactly_once")
                page.screenshot(path=str(shots / "checkpoints.png"), full_page=True)

                # the restart's exception
                page.locator("#tab-exceptions").click()
                expect(page.locator("#exception-history")).to_contain_text("ValueError")
                expect(page.locator("#exception-history")).to_contain_text("boom at element 50")
                page.locator("#exception-history summary").first.click()
                expect(page.locator("#exception-history pre").first).to_contain_text("Traceback")
                page.screenshot(path=str(shots / "exceptions.png"), full_page=True)

                # TaskManagers: slots, memory, logs
                page.locator("header nav a", has_text="TaskManagers").click()
                expect(page.locator("#taskmanagers tbody tr")).to_have_count(2)
                page.locator("#taskmanagers tbody a").first.click()
                expect(page.locator("#tm-cards")).to_contain_text("memory (resident)")
                expect(page.locator("#tm-slots")).to_contain_text(api.job_id)
                page.screenshot(path=str(shots / "taskmanager.png"), full_page=True)

                # a savepoint from the page, into the directory typed in
                page.goto(f"{api.base}/#/job/{api.job_id}")
                page.locator("#savepoint-dir").fill(str(tmp_path / "savepoints"))
                page.locator("#trigger-savepoint").click()
                expect(page.locator("#notice")).to_contain_text(
                    f"Savepoint completed: {tmp_path / 'savepoints'}"
                )
                saved = page.locator("#notice").text_content() or ""
                assert (Path(saved.split(": ", 1)[1].strip()) / "_metadata").exists(), saved
                page.screenshot(path=str(shots / "savepoint.png"), full_page=True)

                # cancel from the page (two clicks: the button asks to confirm)
                page.locator("#cancel-job").click()
                expect(page.locator("#cancel-job")).to_have_text("Confirm: cancel the job")
                page.locator("#cancel-job").click()
                expect(page.locator("h1 .state")).to_have_text("CANCELED")
                expect(page.locator("#job-actions")).to_have_count(0)
                page.screenshot(path=str(shots / "cancelled.png"), full_page=True)
                assert client.get_job_status().name == "CANCELED"
                assert not errors, errors
            finally:
                browser.close()
    finally:
        client.close()
