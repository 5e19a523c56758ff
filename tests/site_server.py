"""A built site served on 127.0.0.1 and a headless Chromium: what the browser tests share."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
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


def _at_site_url(project: Path, url: str) -> None:
    """Point the scratch project's site_url at the test server: Material's instant
    navigation only takes over links that sitemap.xml lists under the page's own origin."""
    config = project / "mkdocs.yml"
    lines = [ln for ln in config.read_text(encoding="utf-8").splitlines() if not ln.startswith("site_url:")]
    config.write_text(f"site_url: {url}/\n" + "\n".join(lines) + "\n", encoding="utf-8")


@contextlib.contextmanager
def served_site(tmp_path_factory, sets: list[str]) -> Iterator[tuple[Path, str]]:
    """The named committed sets built into a site, served at its site_url: (site, url)."""
    results = tmp_path_factory.mktemp("results")
    for name in sets:
        shutil.copytree(ROOT / "results" / name, results / name)
    project = build.copy_project(ROOT, tmp_path_factory.mktemp("project"))
    site = project / "site"
    httpd = bind(site)
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        _at_site_url(project, url)
        build.run(results, project / "docs")
        build.mkdocs_build(project, site)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        yield site, url
        httpd.shutdown()
    finally:
        httpd.server_close()


@contextlib.contextmanager
def chromium():
    """Debian's Chromium through Playwright, headless, with no browser download."""
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield b
        b.close()
