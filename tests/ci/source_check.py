"""The command line every source check script shares (check_layers, check_lengths,
check_word_order): --root (the repository, default the one holding the scripts), --self-test
(the checker on embedded snippets), and the script's own options."""

import argparse
import io
import tempfile
from pathlib import Path


def run_source_check_main(argv, doc, self_test, run, add_arguments=None):
    """A source check's main(), its exit status: self_test() with --self-test, else
    run(args) (args.root the repository). add_arguments(parser) adds the script's own options;
    doc is its docstring, whose first line describes it (--help)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[2]),
                        help="the repository (default: the one holding this script)")
    if add_arguments:
        add_arguments(parser)
    parser.add_argument("--self-test", action="store_true", help="the checker on embedded snippets")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    return run(args)


def check_files(files, check):
    """(status, report) of check(root, output) over a scratch tree holding `files` (path: text):
    a self-test's run of its checker on embedded snippets."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            (Path(root) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(root) / path).write_text(text)
        output = io.StringIO()
        status = check(root, output)
    return status, output.getvalue()


def self_test_verdict(script, failures, report, ok_text):
    """A self-test's exit status, printed: the failures and the checker's report, or ok_text."""
    if failures:
        print(f"{script} --self-test: FAILED\n  " + "\n  ".join(failures))
        print(report)
        return 1
    print(f"{script} --self-test: ok ({ok_text})")
    return 0
