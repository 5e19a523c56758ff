"""`python -m gen.report.publish_site [--site-dir site]`: the site built by mkdocs and published whole.

Takes: the project in the current folder (mkdocs.yml, docs/ with the pages `python -m gen build`
wrote). Gives: site/ replaced by the new site in one rename (gen.report.build.publish_site), or kept
where it holds what mkdocs made from the same sources (by content), or the old site kept: exit 1
with mkdocs' output when the build fails, 130 when interrupted, 2 for a folder it may not write or a
full disk.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gen.model import layout
from gen.model.schema import UserError


def main(argv: list[str] | None = None) -> int:
    from gen.report import build

    p = argparse.ArgumentParser(prog="python -m gen.report.publish_site", description=__doc__.splitlines()[0])
    p.add_argument("--site-dir", default="site", help="where the site goes (default: site)")
    p.add_argument("--config-file", default="mkdocs.yml", help="mkdocs' configuration (default: mkdocs.yml)")
    a = p.parse_args(argv)
    try:
        with layout.terminate_as_interrupt():
            build.publish_site(Path.cwd(), Path(a.site_dir), a.config_file)
            layout.raise_if_terminated()
    except RuntimeError as exc:  # mkdocs failed: its output, the old site kept
        print(f"{exc}\nthe old site in {a.site_dir} is kept", file=sys.stderr)
        return 1
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if exc.errno not in layout.ENVIRONMENT_ERRNOS:
            raise
        print(f"error: {exc.filename or a.site_dir}: {exc.strerror}; the old site is kept", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: the old site in {a.site_dir} is kept", file=sys.stderr)
        return 130
    print(f"site published: {Path(a.site_dir).resolve() / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
