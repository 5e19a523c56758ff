"""A built site served on 127.0.0.1 and a headless Chromium: what the browser tests share.

`build_site` builds named sets into a scratch project (python -m gen build, then a strict
mkdocs build, as published), and `BuiltSite.serving()` serves a copy built with its site_url
at a port reserved for it (one per test process), for as long as a test module needs; `Tab` opens
its pages one after another in one browser tab.
conftest.py's `built_site(*names)` builds each list of sets once per session this way, shared by
the test processes, for every test file that reads a built site or opens it in Chromium. The
server runs only while a module uses it: a thread in the test process would make later in-process
builds render serially (gen.report.render forks only when no other thread runs).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gen.report import build

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flags Chromium tries outside connections (site-stack.md).
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def bind(directory: Path) -> http.server.ThreadingHTTPServer:
    """A server for directory on a free port of 127.0.0.1, not yet serving."""
    return http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))


def bind_served(project: Path) -> http.server.ThreadingHTTPServer:
    """A server on a free port of 127.0.0.1 for the copy of the project's site built for that port
    (project/site-served-PORT), not yet serving: each test process that serves a shared site has its own."""
    httpd = bind(project)
    httpd.RequestHandlerClass = functools.partial(_Quiet, directory=str(served_dir(project, httpd)))
    return httpd


def served_dir(project: Path, httpd: http.server.ThreadingHTTPServer) -> Path:
    return project / f"site-served-{httpd.server_address[1]}"


def committed_sets() -> list[str]:
    """The result sets the repository holds: git's list, so that sets a run left in results/
    do not change the tests (every set folder where git or its history is absent)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", "results/*/result.json"], cwd=ROOT,
                             capture_output=True, check=True).stdout.decode()
        names = sorted({Path(p).parts[1] for p in out.split("\0") if p})
    except (OSError, subprocess.CalledProcessError):
        names = []
    return names or sorted(p.parent.name for p in (ROOT / "results").glob("*/result.json")
                           if not p.parent.name.startswith("."))


@dataclass
class BuiltSite:
    results: Path  # the copied result sets
    project: Path  # mkdocs.yml and docs/ (hand-written pages and the generated ones)
    site: Path  # what mkdocs built, as published: no site_url
    httpd: http.server.ThreadingHTTPServer  # bound to the port of the served copy's site_url; idle until serving()

    @property
    def docs(self) -> Path:
        return self.project / "docs"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def served_site(self) -> Path:
        """The same pages built again with site_url at the served address (Material's instant
        navigation takes over only links that sitemap.xml lists under the page's own origin)."""
        served = served_dir(self.project, self.httpd)
        if not served.is_dir():
            config = self.project / "mkdocs.yml"
            lines = [ln for ln in config.read_text(encoding="utf-8").splitlines() if not ln.startswith("site_url:")]
            name = f"mkdocs-{served.name}.yml"  # its own: another test process may build its copy beside it
            (self.project / name).write_text(f"site_url: {self.url}/\n" + "\n".join(lines) + "\n", encoding="utf-8")
            build.mkdocs_build(self.project, served, config=name)
        return served

    @contextlib.contextmanager
    def serving(self) -> Iterator[tuple[Path, str]]:
        """Serve the site at its site_url while inside; yields (the served copy, its url)."""
        site = self.served_site
        thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        thread.start()
        try:
            yield site, self.url
        finally:
            self.httpd.shutdown()
            thread.join()


def build_site(root: Path, sets: list[str]) -> BuiltSite:
    """The named committed sets built into a site as published (gen build, mkdocs build --strict), in
    root/results and root/project (root: an empty folder)."""
    results, project = root / "results", root / "project"
    for name in sets:
        shutil.copytree(ROOT / "results" / name, results / name)
    build.copy_project(ROOT, project)
    build.run(results, project / "docs")
    build.mkdocs_build(project, project / "site")
    return BuiltSite(results, project, project / "site", bind_served(project))


@contextlib.contextmanager
def chromium():
    """Debian's Chromium through Playwright, headless, with no browser download."""
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield b
        b.close()


class Tab:
    """One tab that opens page after page, as a reader going through the site does: the chart bundle
    comes from the cache, compiled, from the second page on (a context of its own for each page cost
    three times the CPU of the visit). Each visit starts with nothing stored (the palette chosen on the
    page before is forgotten), and its requests, errors and console warnings are its own. `with Tab(...) as tab:`"""

    def __init__(self, browser, server: str, **context_args):
        self.server = server
        self.context = browser.new_context(**({"viewport": {"width": 1280, "height": 900}} | context_args))
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.console: list[str] = []  # the page's console warnings and errors (Vega's "WARN ..." among them)
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}")
                     if m.type in ("warning", "error") else None)

    def visit(self, path: str):
        """Load path (until its load event); returns the page."""
        if self.page.url.startswith(self.server):
            self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        self.requests.clear()
        self.errors.clear()
        self.console.clear()
        self.page.goto(f"{self.server}/{path}", wait_until="load")
        return self.page

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.context.close()
