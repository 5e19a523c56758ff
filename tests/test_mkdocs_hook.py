"""gen/report/mkdocs_hook.py: blocks of finished HTML go into the page as they are, their anchors are
still checked by mkdocs, and the hook agrees with the build on the markers and the generated folder."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import markdown
import pytest

from benchmarks.bench_build import fabricate
from gen.report import build, prerender

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("report_mkdocs_hook", ROOT / build.HOOK)
hook = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hook)


def _mkdocs(project: Path, site: str, monkeypatch, site_url: str | None = None, **settings):
    """mkdocs build --strict in this process (with site_url, as `mkdocs serve` builds: each page has
    its canonical URL); returns the hook module."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    monkeypatch.chdir(project)  # the snippets' base path
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(project / site), site_url=site_url)
    module = config["hooks"][build.HOOK.as_posix()]  # mkdocs loads it once: the settings are undone after
    with monkeypatch.context() as patch:
        for name, value in settings.items():
            patch.setattr(module, name, value)
        mkdocs_build(config)
    return module


@pytest.fixture(scope="module")
def two_sets_built(tmp_path_factory) -> tuple[Path, list[str]]:
    """Two bench sets (fabricate, one length a scenario) built into a scratch project, once for the module:
    (the project, the sets' names). Tests change a copy (project_copy)."""
    results = tmp_path_factory.mktemp("two-sets") / "results"
    names = [fabricate(results, i, points=1).name for i in range(2)]
    project = build.copy_project(ROOT, results.parent / "project")
    build.run(results, project / "docs")
    return project, names


def project_copy(two_sets_built, tmp_path: Path) -> tuple[Path, list[str]]:
    project, names = two_sets_built
    return Path(shutil.copytree(project, tmp_path / "project")), names


@pytest.mark.slow
def test_a_set_pages_links_to_anchors_are_still_checked(tmp_path, monkeypatch, two_sets_built):
    """A set's page in the navigation is converted by the build; mkdocs still checks its links'
    anchors (the hook records them as mkdocs' conversion does): one to nowhere fails the build."""
    from mkdocs.exceptions import Abort

    project, (name, _) = project_copy(two_sets_built, tmp_path)
    page = project / "docs" / "generated" / "sets" / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    assert hook.BEGIN in text and "../../methodology.html#host-bound" in text
    _mkdocs(project, "site", monkeypatch)
    page.write_text(text.replace("../../methodology.html#host-bound", "../../methodology.html#no-such-part"),
                    encoding="utf-8")
    with pytest.raises(Abort):
        _mkdocs(project, "broken", monkeypatch)


@pytest.mark.slow
def test_a_kept_navigation_makes_the_site_the_theme_draws(tmp_path, monkeypatch, two_sets_built):
    """The navigation of the pages outside it, drawn once per kind of folder and reused, gives the site the
    theme gives drawing it on every page, to the byte (overrides/main.html without its site_nav block)."""
    project, _ = project_copy(two_sets_built, tmp_path)
    module = _mkdocs(project, "kept", monkeypatch)
    reused = [k for k, (_, compared, same) in module._navs.items() if compared and same]
    assert ("generated/sets", 1, False, False) in reused
    main = project / "overrides" / "main.html"
    text = main.read_text(encoding="utf-8")
    assert "{% block site_nav %}" in text
    main.write_text(text[:text.rindex("{#-")], encoding="utf-8")  # the block is the file's last part
    module = _mkdocs(project, "drawn", monkeypatch)
    assert not module._navs  # the theme drew every page's navigation
    kept = sorted(p.relative_to(project / "kept") for p in (project / "kept").rglob("*") if p.is_file())
    drawn = sorted(p.relative_to(project / "drawn") for p in (project / "drawn").rglob("*") if p.is_file())
    assert kept == drawn and len(kept) > 50
    for rel in kept:
        assert (project / "kept" / rel).read_bytes() == (project / "drawn" / rel).read_bytes(), rel


def test_the_hook_names_the_generated_folder_and_markers_as_the_build_does():
    """The hook imports nothing of gen (mkdocs loads it by its path): what it shares with the build is
    written twice, and compared here."""
    from gen.report import format as fmt

    assert hook.GENERATED == fmt.GENERATED + "/"
    assert (hook.BEGIN, hook.END, hook.LIST) == (prerender.BEGIN, prerender.END, prerender.LIST)
    toc = prerender.TOC.format("eyJhIjogMX0=")
    assert hook._TOC_LINE.fullmatch(toc + "\n")


def test_a_list_block_is_the_list_markdown_makes_without_the_build_too():
    """mkdocs converting the page itself (the build's convert=False): the hook gives a LIST block's
    holder one newline less, as gen.report.prerender does, so the page is the Markdown list's or table's."""
    import types

    from tests.test_prerender import _unmarked, list_pages

    names, configs = prerender._read_config(ROOT / "mkdocs.yml")
    md = markdown.Markdown(extensions=names, extension_configs=configs)
    md.treeprocessors.register(prerender._Links(md), "report_links", 0)  # mkdocs' rewrite of .md links

    def through_hook(text: str) -> str:
        page = types.SimpleNamespace(file=types.SimpleNamespace(src_uri="x.md"), meta={}, toc=None)
        md.reset()
        return hook.on_post_page(hook.on_page_content(md.convert(hook.on_page_markdown(text, page)), page), page)

    n = 0
    for text, held in list_pages():
        html = through_hook(held)
        md.reset()
        assert html == md.convert(_unmarked(text)), (text, held)
        n += 1
    assert n > 50
    assert through_hook(held.replace(hook.LIST, hook.BEGIN)) != html  # the marker is what does it
