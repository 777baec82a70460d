"""The command line every source check script shares (check_layers, check_lengths,
check_word_order): --root (the repository, default the one holding the scripts), --self-test
(the checker on embedded snippets), and the script's own options."""

import argparse
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
