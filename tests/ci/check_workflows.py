#!/usr/bin/env python3
"""Structural check of duet's GitHub Actions workflows (actionlint is not in Debian 12).

    python3 tests/ci/check_workflows.py .github/workflows/*.yml   # exit 0 when all are valid
    python3 tests/ci/check_workflows.py --self-test               # the checker on bad snippets

It checks the subset of the workflow syntax duet uses, as GitHub reads it (YAML 1.2: `on` is a
key, not the boolean true; duplicate keys are errors): the top level, the triggers (push,
pull_request, schedule with 5-field cron entries, workflow_dispatch inputs), every job and step
(known keys only, runs-on, steps with exactly one of uses/run, needs, timeout-minutes, strategy
and matrix, container, concurrency, permissions), every ${{ }} expression (closed, known
contexts and functions, matrix keys, declared inputs, needs and step ids), and that every
`make TARGET` a step runs has a rule in the repository's Makefile. Each message names the file,
the job and the step.
"""

import argparse
import re
import shlex
import sys
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.stderr.write("check_workflows.py needs PyYAML (Debian: apt-get install python3-yaml)\n")
    sys.exit(2)


# ---------------------------------------------------------------- YAML as GitHub reads it


class WorkflowLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans (only true/false) and duplicate keys as errors.

    PyYAML implements YAML 1.1, where on/off/yes/no are booleans: the key `on` would be read as
    True. GitHub's parser reads them as strings."""


WorkflowLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
WorkflowLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


class DuplicateKey(yaml.YAMLError):
    pass


def _construct_mapping(loader, node, deep=False):
    loader.flatten_mapping(node)
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            continue
        if key in seen:
            raise DuplicateKey(f"line {key_node.start_mark.line + 1}: duplicate key '{key}' "
                               f"(first at line {seen[key] + 1})")
        seen[key] = key_node.start_mark.line
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


WorkflowLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


# ---------------------------------------------------------------- the syntax subset

TOP_KEYS = {"name", "run-name", "on", "permissions", "env", "defaults", "concurrency", "jobs"}
JOB_KEYS = {"name", "runs-on", "needs", "if", "steps", "strategy", "container", "services", "env",
            "defaults", "timeout-minutes", "continue-on-error", "permissions", "concurrency",
            "outputs", "environment"}
STEP_KEYS = {"id", "name", "if", "uses", "run", "with", "env", "shell", "working-directory",
             "continue-on-error", "timeout-minutes"}
# GitHub's schema has two kinds of step: a `run` step takes shell and working-directory, a
# `uses` step takes with.
RUN_ONLY_STEP_KEYS = {"shell", "working-directory"}
USES_ONLY_STEP_KEYS = {"with"}
STRATEGY_KEYS = {"matrix", "fail-fast", "max-parallel"}
CONTAINER_KEYS = {"image", "credentials", "env", "ports", "volumes", "options"}
CONCURRENCY_KEYS = {"group", "cancel-in-progress"}
PERMISSION_SCOPES = {"actions", "attestations", "checks", "contents", "deployments", "discussions",
                     "id-token", "issues", "models", "packages", "pages", "pull-requests",
                     "repository-projects", "security-events", "statuses"}
EVENTS = {"branch_protection_rule", "check_run", "check_suite", "create", "delete", "deployment",
          "deployment_status", "discussion", "discussion_comment", "fork", "gollum",
          "issue_comment", "issues", "label", "merge_group", "milestone", "page_build", "public",
          "pull_request", "pull_request_review", "pull_request_review_comment",
          "pull_request_target", "push", "registry_package", "release", "repository_dispatch",
          "schedule", "status", "watch", "workflow_call", "workflow_dispatch", "workflow_run"}
PUSH_FILTERS = {"branches", "branches-ignore", "tags", "tags-ignore", "paths", "paths-ignore"}
PULL_REQUEST_FILTERS = {"branches", "branches-ignore", "paths", "paths-ignore", "types"}
INPUT_KEYS = {"description", "required", "default", "type", "options"}
INPUT_TYPES = {"string", "boolean", "choice", "number", "environment"}
CONTEXTS = {"github", "env", "vars", "job", "jobs", "steps", "runner", "secrets", "strategy",
            "matrix", "needs", "inputs"}
FUNCTIONS = {"contains", "startswith", "endswith", "format", "join", "tojson", "fromjson",
             "hashfiles", "success", "always", "cancelled", "failure"}
LITERALS = {"true", "false", "null", "nan", "infinity"}

ID_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
USES_RE = re.compile(r"^(?:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:/[^@\s]+)?@[^@\s]+"
                     r"|\./\S*|docker://\S+)$")
ASSIGNMENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
CRON_FIELDS = [("minute", 0, 59, {}), ("hour", 0, 23, {}), ("day of month", 1, 31, {}),
               ("month", 1, 12, {m: i + 1 for i, m in enumerate(
                   "jan feb mar apr may jun jul aug sep oct nov dec".split())}),
               ("day of week", 0, 6, {d: i for i, d in enumerate(
                   "sun mon tue wed thu fri sat".split())})]


# ---------------------------------------------------------------- ${{ }} expressions


def split_expressions(text):
    """The contents of every ${{ ... }} in text, and an error if one is not closed.

    Quote-aware: '}}' inside a string literal ('...', '' escapes a quote) does not close."""
    found, i = [], 0
    while True:
        start = text.find("${{", i)
        if start < 0:
            return found, None
        j, quoted = start + 3, False
        while j < len(text):
            c = text[j]
            if quoted:
                if c == "'":
                    if text.startswith("''", j):
                        j += 1
                    else:
                        quoted = False
            elif c == "'":
                quoted = True
            elif text.startswith("}}", j):
                break
            elif text.startswith("${{", j):
                return found, f"'${{{{' at offset {start} is not closed before the next '${{{{'"
            j += 1
        else:
            return found, f"'${{{{' at offset {start} is not closed with '}}}}'"
        found.append(text[start + 3:j].strip())
        i = j + 2


TOKEN_RE = re.compile(r"""\s*(?:
    (?P<string>'(?:[^']|'')*')
  | (?P<number>0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_-]*)
  | (?P<op>==|!=|<=|>=|&&|\|\||[<>!().,\[\]*])
)""", re.VERBOSE)


def tokenize(expr):
    tokens, i = [], 0
    while i < len(expr):
        if expr[i:].strip() == "":
            break
        m = TOKEN_RE.match(expr, i)
        if not m:
            raise ValueError(f"unexpected character {expr[i:].lstrip()[:1]!r}")
        kind = m.lastgroup
        tokens.append((kind, m.group(kind)))
        i = m.end()
    return tokens


def references(expr):
    """(context, [property, ...]) for every context reference in an expression, and the names
    of the functions it calls. A property is None when it is not a plain name or literal."""
    tokens = tokenize(expr)
    refs, calls = [], []
    depth = 0
    for kind, text in tokens:
        if text in "([":
            depth += 1
        elif text in ")]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced '{text}'")
    if depth:
        raise ValueError("unbalanced parentheses or brackets")
    k = 0
    while k < len(tokens):
        kind, text = tokens[k]
        after_dot = k > 0 and tokens[k - 1] == ("op", ".")
        if kind != "ident" or after_dot:
            k += 1
            continue
        if k + 1 < len(tokens) and tokens[k + 1] == ("op", "("):
            calls.append(text)
            k += 1
            continue
        if text.lower() in LITERALS:
            k += 1
            continue
        chain, k = [], k + 1
        while k < len(tokens):
            if tokens[k] == ("op", ".") and k + 1 < len(tokens):
                nxt = tokens[k + 1]
                chain.append(nxt[1] if nxt[0] == "ident" or nxt == ("op", "*") else None)
                k += 2
            elif tokens[k] == ("op", "[") and k + 2 < len(tokens) and tokens[k + 2] == ("op", "]"):
                inner = tokens[k + 1]
                chain.append(inner[1][1:-1].replace("''", "'") if inner[0] == "string" else None)
                k += 3
            elif tokens[k] == ("op", "["):
                chain.append(None)
                break
            else:
                break
        refs.append((text, chain))
    return refs, calls


# ---------------------------------------------------------------- make targets


def makefile_targets(path):
    """(targets with a rule, names declared .PHONY) of a Makefile."""
    rules, phony = set(), set()
    text = Path(path).read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if line.startswith("\t") or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^([^:=#\t][^:=#]*?)\s*::?(?!=)(.*)$", line)
        if not m or re.match(r"^\s*(?:export|override|define|include|-include|sinclude)\b", line):
            continue
        names, rest = m.group(1).split(), m.group(2)
        if names == [".PHONY"]:
            phony.update(n for n in rest.split("#")[0].split() if "$" not in n)
            continue
        for name in names:
            if not name.startswith(".") and "$" not in name and "%" not in name:
                rules.add(name)
    return rules, phony


SHELL_PREFIXES = {"sudo", "time", "env", "exec", "command", "nice", "nohup", "if", "then", "else",
                  "elif", "do", "while", "until", "!", "{", "(", "xargs"}
REDIRECTIONS = {">", ">>", "<", "<<", "<<<", ">&", "&>", "&>>", "<&", ">|", "<>"}
MAKE_OPTIONS_WITH_ARG = {"-C", "-f", "-I", "-o", "-W", "--directory", "--file", "--makefile",
                         "--include-dir", "--old-file", "--assume-old", "--new-file",
                         "--assume-new", "--what-if", "-E", "--eval"}
MAKE_OPTIONS_OPTIONAL_NUMBER = {"-j", "-l", "--jobs", "--load-average"}


def make_invocations(script):
    """The target lists of the `make` commands in a shell script, with each ${{ }} replaced by
    a placeholder __EXPR<n>__ (returned with its expression). Invocations of another
    Makefile (-C DIR, -f FILE) are left out."""
    expressions = []

    def placeholder(match):
        expressions.append(match.group(1).strip())
        return f"__EXPR{len(expressions) - 1}__"

    text = re.sub(r"\$\{\{(.*?)\}\}", placeholder, script, flags=re.S).replace("\\\n", " ")
    invocations = []
    for line in text.splitlines():
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            continue
        punct = [bool(t) and all(c in ";&|<>" for c in t) for t in tokens]
        at_start, k = True, 0
        while k < len(tokens):
            t = tokens[k]
            if punct[k]:
                k += 2 if t in REDIRECTIONS else 1
                at_start = at_start if t in REDIRECTIONS else True
                continue
            if not at_start:
                k += 1
                continue
            if t in SHELL_PREFIXES or ASSIGNMENT_RE.match(t):
                k += 1
                continue
            at_start = False
            if t.rsplit("/", 1)[-1] not in ("make", "gmake"):
                k += 1
                continue
            targets, other_makefile, k = [], False, k + 1
            while k < len(tokens) and not (punct[k] and tokens[k] not in REDIRECTIONS):
                a = tokens[k]
                if punct[k]:                                   # a redirection and its file
                    k += 2
                    continue
                if a.isdigit() and k + 1 < len(tokens) and tokens[k + 1] in REDIRECTIONS:
                    k += 1
                    continue
                if a in MAKE_OPTIONS_WITH_ARG:
                    arg = tokens[k + 1] if k + 1 < len(tokens) else ""
                    if a in ("-f", "--file", "--makefile") or (
                            a in ("-C", "--directory") and arg not in (".", "./")):
                        other_makefile = True
                    k += 2
                    continue
                if re.match(r"^(?:-f.|--file=|--makefile=)", a) or (
                        re.match(r"^(?:-C.|--directory=)", a)
                        and a.split("=", 1)[-1].removeprefix("-C") not in (".", "./")):
                    other_makefile = True
                elif a in MAKE_OPTIONS_OPTIONAL_NUMBER:
                    if k + 1 < len(tokens) and re.match(r"^[0-9.]+$", tokens[k + 1]):
                        k += 1
                elif not a.startswith("-") and not ASSIGNMENT_RE.match(a):
                    targets.append(a)
                k += 1
            if not other_makefile:
                invocations.append(targets)
    return invocations, expressions


# ---------------------------------------------------------------- the checker


def is_expression(value):
    return isinstance(value, str) and value.strip().startswith("${{") and \
        value.strip().endswith("}}")


def describe(value):
    return type(value).__name__ if value is not None else "null"


class Checker:
    def __init__(self, filename, make_rules=None, make_phony=frozenset()):
        self.filename = filename
        self.make_rules = make_rules      # None: the make check is off
        self.make_phony = make_phony
        self.errors = []
        self.inputs = None                # declared workflow_dispatch / workflow_call inputs
        self.job_ids = set()

    # -- reporting

    def error(self, message, job=None, step=None):
        where = [self.filename]
        if job is not None:
            where.append(f"job '{job}'")
        if step is not None:
            where.append(step)
        self.errors.append(": ".join(where + [message]))

    @staticmethod
    def step_label(index, step):
        label = f"step {index + 1}"
        if isinstance(step, dict):
            title = step.get("name") or step.get("id") or step.get("uses")
            if not title and isinstance(step.get("run"), str):
                title = step["run"].strip().splitlines()[0] if step["run"].strip() else ""
            if title:
                label += f" '{str(title)[:60]}'"
        return label

    # -- the workflow

    def check_text(self, text):
        try:
            doc = yaml.load(text, Loader=WorkflowLoader)
        except yaml.YAMLError as e:
            self.error("not valid YAML: " + " ".join(str(e).split()))
            return self.errors
        self.check_workflow(doc)
        return self.errors

    def check_workflow(self, doc):
        if not isinstance(doc, dict):
            self.error(f"the workflow must be a mapping, not {describe(doc)}")
            return
        # WorkflowLoader reads `on` as the key "on" (PyYAML's default YAML 1.1 would make it
        # the boolean True, and a check of doc["on"] would wrongly find no triggers).
        for key in doc:
            if key not in TOP_KEYS:
                self.error(f"unknown top-level key '{key}'")
        for key in ("name", "on", "jobs"):
            if key not in doc:
                self.error(f"missing top-level key '{key}'")
        if "name" in doc and not (isinstance(doc["name"], str) and doc["name"].strip()):
            self.error("'name' must be a non-empty string")
        if "on" in doc:
            self.check_triggers(doc["on"])
        for key in ("permissions", "concurrency", "env", "defaults"):
            if key in doc:
                getattr(self, "check_" + key)(doc[key], None)
        workflow_ctx = {"where": "workflow", "unavailable": {
            c: "at the workflow level" for c in ("matrix", "needs", "steps", "job", "runner",
                                                 "strategy")}}
        for key in ("run-name", "env", "concurrency"):
            if key in doc:
                self.check_strings(doc[key], workflow_ctx, None, None, key)
        jobs = doc.get("jobs")
        if "jobs" in doc and not (isinstance(jobs, dict) and jobs):
            self.error("'jobs' must be a non-empty mapping of job ids to jobs")
            return
        if not isinstance(jobs, dict):
            return
        self.job_ids = {str(j) for j in jobs}
        for job_id, job in jobs.items():
            self.check_job(str(job_id), job)

    # -- triggers

    def check_triggers(self, on):
        if isinstance(on, str):
            on = {on: None}
        elif isinstance(on, list):
            if not on or not all(isinstance(e, str) for e in on):
                self.error("'on' as a list must be a non-empty list of event names")
                return
            on = {e: None for e in on}
        elif not isinstance(on, dict) or not on:
            self.error(f"'on' must be an event name, a list or a mapping of events, "
                       f"not {describe(on)}")
            return
        for event, config in on.items():
            where = f"on.{event}"
            if event not in EVENTS:
                self.error(f"{where}: unknown event '{event}'")
                continue
            if event == "schedule":
                self.check_schedule(config)
            elif event in ("push", "pull_request", "pull_request_target"):
                allowed = PUSH_FILTERS if event == "push" else PULL_REQUEST_FILTERS
                if config is None:
                    continue
                if not isinstance(config, dict):
                    self.error(f"{where}: must be empty or a mapping of filters")
                    continue
                for key, value in config.items():
                    if key not in allowed:
                        self.error(f"{where}: unknown filter '{key}' "
                                   f"(expected one of {', '.join(sorted(allowed))})")
                    elif not (isinstance(value, str) or (
                            isinstance(value, list) and value
                            and all(isinstance(v, str) for v in value))):
                        self.error(f"{where}.{key}: must be a string or a non-empty list of "
                                   f"strings")
                for key in ("branches", "tags", "paths"):
                    if key in config and key + "-ignore" in config:
                        self.error(f"{where}: '{key}' and '{key}-ignore' cannot both be given")
            elif event in ("workflow_dispatch", "workflow_call"):
                self.check_dispatch(where, config)

    def check_schedule(self, config):
        if not (isinstance(config, list) and config):
            self.error("on.schedule: must be a non-empty list of '- cron: ...' entries")
            return
        for n, entry in enumerate(config, 1):
            where = f"on.schedule[{n}]"
            if not isinstance(entry, dict) or set(entry) != {"cron"}:
                self.error(f"{where}: each entry must be a mapping with the one key 'cron'")
                continue
            cron = entry["cron"]
            if not isinstance(cron, str):
                self.error(f"{where}: cron must be a string, not {describe(cron)}")
                continue
            fields = cron.split()
            if len(fields) != 5:
                self.error(f"{where}: cron '{cron}' has {len(fields)} fields, expected 5 "
                           f"(minute hour day-of-month month day-of-week)")
                continue
            for field, (label, low, high, names) in zip(fields, CRON_FIELDS):
                problem = self.cron_field_problem(field, low, high, names)
                if problem:
                    self.error(f"{where}: cron '{cron}': {label} '{field}': {problem}")

    @staticmethod
    def cron_field_problem(field, low, high, names):
        def value(text):
            if text.lower() in names:
                return names[text.lower()]
            if not text.isdigit():
                raise ValueError(f"'{text}' is not a number")
            v = int(text)
            if not low <= v <= high:
                raise ValueError(f"{v} is out of range {low}-{high}")
            return v
        try:
            for part in field.split(","):
                base, _, step = part.partition("/")
                if step and not (step.isdigit() and int(step) > 0):
                    raise ValueError(f"bad step '/{step}'")
                if base == "*":
                    continue
                first, dash, last = base.partition("-")
                if value(first) > (value(last) if dash else high):
                    raise ValueError(f"range '{base}' is empty")
        except ValueError as e:
            return str(e)
        return None

    def check_dispatch(self, where, config):
        if self.inputs is None:
            self.inputs = set()
        if config is None:
            return
        if not isinstance(config, dict):
            self.error(f"{where}: must be empty or a mapping")
            return
        for key in config:
            if key not in ("inputs", "outputs", "secrets") or (
                    key != "inputs" and where.endswith("workflow_dispatch")):
                self.error(f"{where}: unknown key '{key}'")
        inputs = config.get("inputs")
        if inputs is None:
            return
        if not isinstance(inputs, dict):
            self.error(f"{where}.inputs: must be a mapping of input names to inputs")
            return
        for name, spec in inputs.items():
            iw = f"{where}.inputs.{name}"
            if not ID_RE.match(str(name)):
                self.error(f"{iw}: input name must match {ID_RE.pattern}")
            self.inputs.add(str(name))
            if not isinstance(spec, dict):
                self.error(f"{iw}: must be a mapping (description, type, ...)")
                continue
            for key in spec:
                if key not in INPUT_KEYS:
                    self.error(f"{iw}: unknown key '{key}'")
            kind = spec.get("type", "string")   # GitHub's default type
            if kind not in INPUT_TYPES:
                self.error(f"{iw}: type '{kind}' is not one of {', '.join(sorted(INPUT_TYPES))}")
                continue
            if "required" in spec and not isinstance(spec["required"], bool):
                self.error(f"{iw}: required must be true or false")
            options = spec.get("options")
            if kind == "choice":
                if not (isinstance(options, list) and options
                        and all(isinstance(o, (str, int, float)) for o in options)):
                    self.error(f"{iw}: a choice input needs a non-empty list of options")
                elif "default" in spec and spec["default"] not in options:
                    self.error(f"{iw}: default '{spec['default']}' is not one of the options")
            elif options is not None:
                self.error(f"{iw}: options are only for type: choice")
            if "default" in spec:
                default = spec["default"]
                if kind == "boolean" and not isinstance(default, bool):
                    self.error(f"{iw}: the default of a boolean input must be true or false")
                if kind == "number" and (isinstance(default, bool)
                                         or not isinstance(default, (int, float))):
                    self.error(f"{iw}: the default of a number input must be a number")

    # -- shared values

    def check_permissions(self, value, job):
        if value in ("read-all", "write-all") or value == {}:
            return
        if not isinstance(value, dict):
            self.error(f"permissions: must be read-all, write-all or a mapping", job)
            return
        for scope, level in value.items():
            if scope not in PERMISSION_SCOPES:
                self.error(f"permissions: unknown scope '{scope}'", job)
            elif level not in ("read", "write", "none"):
                self.error(f"permissions.{scope}: must be read, write or none", job)

    def check_concurrency(self, value, job):
        if isinstance(value, str):
            return
        if not isinstance(value, dict):
            self.error("concurrency: must be a group name or a mapping", job)
            return
        for key in value:
            if key not in CONCURRENCY_KEYS:
                self.error(f"concurrency: unknown key '{key}'", job)
        if not isinstance(value.get("group"), str) or not value["group"].strip():
            self.error("concurrency: needs a 'group'", job)
        cancel = value.get("cancel-in-progress", False)
        if not isinstance(cancel, bool) and not is_expression(cancel):
            self.error("concurrency.cancel-in-progress: must be true, false or an expression",
                       job)

    def check_env(self, value, job, step=None):
        if is_expression(value):
            return
        if not isinstance(value, dict):
            self.error(f"env: must be a mapping, not {describe(value)}", job, step)
            return
        for key, v in value.items():
            if not isinstance(key, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key):
                self.error(f"env: '{key}' is not a valid variable name", job, step)
            if isinstance(v, (dict, list)):
                self.error(f"env.{key}: must be a string, number or boolean", job, step)

    def check_defaults(self, value, job):
        if not isinstance(value, dict) or set(value) - {"run"} or not isinstance(
                value.get("run"), dict) or set(value["run"]) - {"shell", "working-directory"}:
            self.error("defaults: must be a mapping 'run: {shell, working-directory}'", job)

    def check_timeout(self, value, job, step=None):
        if is_expression(value):
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            self.error(f"timeout-minutes: must be a positive number, not {value!r}", job, step)

    def check_flag(self, key, value, job, step=None):
        if not isinstance(value, bool) and not is_expression(value):
            self.error(f"{key}: must be true, false or an expression, not {value!r}", job, step)

    def check_container(self, key, value, job):
        if isinstance(value, str):
            if not value.strip():
                self.error(f"{key}: image name is empty", job)
            return
        if not isinstance(value, dict):
            self.error(f"{key}: must be an image name or a mapping with 'image'", job)
            return
        for k in value:
            if k not in CONTAINER_KEYS:
                self.error(f"{key}: unknown key '{k}'", job)
        if not isinstance(value.get("image"), str) or not value["image"].strip():
            self.error(f"{key}: needs an 'image'", job)
        if "env" in value:
            self.check_env(value["env"], job)
        for k in ("ports", "volumes"):
            if k in value and not isinstance(value[k], list):
                self.error(f"{key}.{k}: must be a list", job)
        if "options" in value and not isinstance(value["options"], str):
            self.error(f"{key}.options: must be a string", job)

    # -- jobs

    def matrix_info(self, job_id, job):
        """(keys, values per key) of the job's matrix; keys is None when it cannot be known
        (no strategy: an empty set; a matrix from an expression: None)."""
        strategy = job.get("strategy")
        if strategy is None:
            return set(), {}
        if not isinstance(strategy, dict):
            self.error(f"strategy: must be a mapping, not {describe(strategy)}", job_id)
            return None, {}
        for key in strategy:
            if key not in STRATEGY_KEYS:
                self.error(f"strategy: unknown key '{key}'", job_id)
        if "fail-fast" in strategy:
            self.check_flag("strategy.fail-fast", strategy["fail-fast"], job_id)
        if "max-parallel" in strategy:
            mp = strategy["max-parallel"]
            if not is_expression(mp) and (isinstance(mp, bool) or not isinstance(mp, int)
                                          or mp <= 0):
                self.error("strategy.max-parallel: must be a positive integer", job_id)
        if "matrix" not in strategy:
            self.error("strategy: needs a 'matrix'", job_id)
            return set(), {}
        matrix = strategy["matrix"]
        if is_expression(matrix):
            return None, {}
        if not isinstance(matrix, dict) or not matrix:
            self.error(f"strategy.matrix: must be a non-empty mapping, not {describe(matrix)}",
                       job_id)
            return None, {}
        keys, values, unknown = set(), {}, False
        for key, value in matrix.items():
            if key in ("include", "exclude"):
                continue
            keys.add(str(key))
            if is_expression(value):
                unknown = True
            elif not isinstance(value, list) or not value:
                self.error(f"strategy.matrix.{key}: must be a non-empty list, "
                           f"not {describe(value)}", job_id)
            else:
                values.setdefault(str(key), []).extend(value)
        for kind in ("include", "exclude"):
            if kind not in matrix:
                continue
            entries = matrix[kind]
            if is_expression(entries):
                unknown = True
                continue
            if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
                self.error(f"strategy.matrix.{kind}: must be a list of mappings", job_id)
                continue
            for entry in entries:
                for key, value in entry.items():
                    if kind == "exclude" and str(key) not in keys:
                        self.error(f"strategy.matrix.exclude: key '{key}' is not a matrix key",
                                   job_id)
                    if kind == "include":
                        values.setdefault(str(key), []).append(value)
        if "include" not in matrix and not keys:
            self.error("strategy.matrix: has no keys", job_id)
        keys.update(k for k in values)
        return (None if unknown else keys), values

    def check_job(self, job_id, job):
        if not ID_RE.match(job_id):
            self.error(f"job id must match {ID_RE.pattern} (letters, digits, '_', '-'; "
                       f"not starting with a digit or '-')", job_id)
        if not isinstance(job, dict):
            self.error(f"must be a mapping, not {describe(job)}", job_id)
            return
        for key in job:
            if key not in JOB_KEYS:
                self.error(f"unknown key '{key}'", job_id)
        if "runs-on" not in job:
            self.error("missing 'runs-on'", job_id)
        else:
            runs_on = job["runs-on"]
            ok = (isinstance(runs_on, str) and runs_on.strip()) or (
                isinstance(runs_on, list) and runs_on
                and all(isinstance(r, str) and r.strip() for r in runs_on)) or (
                isinstance(runs_on, dict) and runs_on and set(runs_on) <= {"group", "labels"})
            if not ok:
                self.error("runs-on: must be a runner label, a list of labels, an expression "
                           "or a mapping with group/labels", job_id)
        if "name" in job and not isinstance(job["name"], str):
            self.error("name: must be a string", job_id)
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        if not isinstance(needs, list) or not all(isinstance(n, str) for n in needs):
            self.error("needs: must be a job id or a list of job ids", job_id)
            needs = []
        for n in needs:
            if n not in self.job_ids:
                self.error(f"needs: no job '{n}' in this workflow", job_id)
            elif n == job_id:
                self.error("needs: a job cannot need itself", job_id)
        if "timeout-minutes" in job:
            self.check_timeout(job["timeout-minutes"], job_id)
        if "continue-on-error" in job:
            self.check_flag("continue-on-error", job["continue-on-error"], job_id)
        for key in ("permissions", "concurrency", "env", "defaults"):
            if key in job:
                getattr(self, "check_" + key)(job[key], job_id)
        if "container" in job:
            self.check_container("container", job["container"], job_id)
        if "services" in job:
            if not isinstance(job["services"], dict):
                self.error("services: must be a mapping of service names", job_id)
            else:
                for name, service in job["services"].items():
                    self.check_container(f"services.{name}", service, job_id)
        if "outputs" in job and not (isinstance(job["outputs"], dict) and all(
                isinstance(v, str) for v in job["outputs"].values())):
            self.error("outputs: must be a mapping of names to strings", job_id)
        if "environment" in job:
            env = job["environment"]
            if not (isinstance(env, str) or (isinstance(env, dict) and "name" in env
                                             and set(env) <= {"name", "url"})):
                self.error("environment: must be a name or a mapping with name (and url)",
                           job_id)

        matrix_keys, matrix_values = self.matrix_info(job_id, job)
        context = {"job": job_id, "needs": set(needs), "matrix": matrix_keys,
                   "matrix_values": matrix_values, "has_matrix": "strategy" in job,
                   "unavailable": {}}

        steps = job.get("steps")
        step_ids = []
        if not isinstance(steps, list) or not steps:
            self.error("'steps' must be a non-empty list", job_id)
            steps = []
        for index, step in enumerate(steps):
            if isinstance(step, dict) and isinstance(step.get("id"), str):
                step_ids.append(step["id"])

        # Expressions outside the steps. A job's `if` is evaluated before the job starts and
        # before its matrix is expanded: only github, needs, vars and inputs there.
        for key, value in job.items():
            if key in ("steps", "strategy"):
                continue
            ctx = dict(context, steps=set(step_ids), where=key)
            if key == "if":
                ctx["unavailable"] = {c: "in a job's 'if'" for c in (
                    "steps", "job", "runner", "strategy", "env", "secrets")}
                ctx["unavailable"]["matrix"] = ("in a job's 'if' (it is evaluated before the "
                                                "matrix is expanded)")
                self.check_condition(value, ctx, job_id, None)
            else:
                self.check_strings(value, ctx, job_id, None)

        seen_ids = set()
        for index, step in enumerate(steps):
            self.check_step(index, step, context, seen_ids)

    # -- steps

    def check_step(self, index, step, context, seen_ids):
        job_id, label = context["job"], self.step_label(index, step)
        if not isinstance(step, dict):
            self.error(f"must be a mapping, not {describe(step)}", job_id, label)
            return
        for key in step:
            if key not in STEP_KEYS:
                self.error(f"unknown key '{key}'", job_id, label)
        has_uses, has_run = "uses" in step, "run" in step
        if has_uses == has_run:
            self.error("must have exactly one of 'uses' and 'run'"
                       + (" (it has both)" if has_uses else " (it has neither)"), job_id, label)
        if has_uses:
            uses = step["uses"]
            if not isinstance(uses, str) or not USES_RE.match(uses):
                self.error(f"uses: '{uses}' is not owner/repo@ref, owner/repo/path@ref, "
                           f"./path or docker://image", job_id, label)
            for key in sorted(RUN_ONLY_STEP_KEYS & set(step)):
                self.error(f"'{key}' is for run steps, not uses steps", job_id, label)
            if "with" in step and not isinstance(step["with"], dict):
                self.error("with: must be a mapping of inputs", job_id, label)
        if has_run:
            if not isinstance(step["run"], str) or not step["run"].strip():
                self.error("run: must be a non-empty script", job_id, label)
            for key in sorted(USES_ONLY_STEP_KEYS & set(step)):
                self.error(f"'{key}' is for uses steps, not run steps", job_id, label)
        if "id" in step:
            sid = step["id"]
            if not isinstance(sid, str) or not ID_RE.match(sid):
                self.error(f"id: '{sid}' must match {ID_RE.pattern}", job_id, label)
            elif sid in seen_ids:
                self.error(f"id: '{sid}' is used by an earlier step", job_id, label)
        if "timeout-minutes" in step:
            self.check_timeout(step["timeout-minutes"], job_id, label)
        if "continue-on-error" in step:
            self.check_flag("continue-on-error", step["continue-on-error"], job_id, label)
        if "env" in step:
            self.check_env(step["env"], job_id, label)
        for key in ("name", "shell", "working-directory"):
            if key in step and not isinstance(step[key], str):
                self.error(f"{key}: must be a string", job_id, label)

        ctx = dict(context, steps=set(seen_ids), where="step")
        for key, value in step.items():
            if key == "if":
                self.check_condition(value, ctx, job_id, label)
            else:
                self.check_strings(value, ctx, job_id, label)
        if isinstance(step.get("id"), str):
            seen_ids.add(step["id"])
        if has_run and isinstance(step["run"], str) and self.make_rules is not None and \
                step.get("shell", "bash") in ("bash", "sh"):
            self.check_make(step["run"], context, job_id, label)

    def check_make(self, script, context, job_id, label):
        invocations, expressions = make_invocations(script)
        for targets in invocations:
            for target in targets:
                candidates = [target]
                m = re.fullmatch(r"__EXPR(\d+)__", target)
                if m:
                    refs = re.fullmatch(r"matrix\.([A-Za-z_][A-Za-z0-9_-]*)",
                                        expressions[int(m.group(1))])
                    values = refs and context["matrix_values"].get(refs.group(1))
                    if not values:
                        continue        # a value only known when the workflow runs
                    candidates = [str(v) for v in values]
                elif "__EXPR" in target or "$" in target:
                    continue
                for name in candidates:
                    if name in self.make_rules:
                        continue
                    if name in self.make_phony:
                        self.error(f"`make {name}`: '{name}' is declared .PHONY in the Makefile "
                                   f"but has no rule (make would do nothing)", job_id, label)
                    else:
                        self.error(f"`make {name}`: no target '{name}' in the Makefile",
                                   job_id, label)

    # -- expressions

    def check_condition(self, value, ctx, job, step):
        """An `if`: a bare expression unless it is written with ${{ }}."""
        if isinstance(value, (bool, int, float)):
            return
        if not isinstance(value, str) or not value.strip():
            self.error(f"if: must be an expression, not {value!r}", job, step)
            return
        if "${{" in value:
            self.check_strings(value, ctx, job, step, key="if")
        else:
            self.check_expression(value, ctx, job, step, key="if")

    def check_strings(self, value, ctx, job, step, key=None):
        if isinstance(value, dict):
            for k, v in value.items():
                self.check_strings(k, ctx, job, step, key)
                self.check_strings(v, ctx, job, step, key or k)
        elif isinstance(value, list):
            for v in value:
                self.check_strings(v, ctx, job, step, key)
        elif isinstance(value, str):
            expressions, problem = split_expressions(value)
            if problem:
                self.error(f"{key + ': ' if key else ''}{problem}", job, step)
            for expr in expressions:
                self.check_expression(expr, ctx, job, step, key)

    def check_expression(self, expr, ctx, job, step, key=None):
        prefix = f"{key}: " if key else ""
        shown = f"${{{{ {expr} }}}}"
        if not expr:
            self.error(f"{prefix}empty expression {shown}", job, step)
            return
        try:
            refs, calls = references(expr)
        except ValueError as e:
            self.error(f"{prefix}{shown}: {e}", job, step)
            return
        for name in calls:
            if name.lower() not in FUNCTIONS:
                self.error(f"{prefix}{shown}: unknown function '{name}'", job, step)
        for name, chain in refs:
            if name not in CONTEXTS:
                self.error(f"{prefix}{shown}: unknown context '{name}'", job, step)
                continue
            if ctx is not None and name in ctx["unavailable"]:
                self.error(f"{prefix}{shown}: the {name} context is not available "
                           f"{ctx['unavailable'][name]}", job, step)
                continue
            first = chain[0] if chain else None
            if name == "matrix" and ctx is not None:
                self.check_matrix_ref(first, ctx, prefix, shown, job, step)
            elif name == "inputs" and first:
                self.check_input_ref(first, prefix, shown, job, step)
            elif name == "github" and chain[:2] == ["event", "inputs"] and len(chain) > 2 \
                    and chain[2]:
                self.check_input_ref(chain[2], prefix, shown, job, step)
            elif name == "needs" and first and ctx is not None and first != "*":
                if first not in ctx["needs"]:
                    self.error(f"{prefix}{shown}: job '{first}' is not in this job's needs",
                               job, step)
            elif name == "steps" and first and ctx is not None and first != "*":
                if first not in ctx["steps"]:
                    self.error(f"{prefix}{shown}: no step with id '{first}' "
                               f"{'before this step' if ctx['where'] == 'step' else 'in this job'}",
                               job, step)

    def check_matrix_ref(self, key, ctx, prefix, shown, job, step):
        keys = ctx["matrix"]
        if not ctx["has_matrix"]:
            self.error(f"{prefix}{shown}: this job has no strategy.matrix", job, step)
        elif keys is not None and key and key != "*" and key not in keys:
            known = ", ".join(sorted(keys)) or "none"
            self.error(f"{prefix}{shown}: '{key}' is not a key of this job's matrix "
                       f"(keys: {known})", job, step)

    def check_input_ref(self, name, prefix, shown, job, step):
        if self.inputs is None:
            self.error(f"{prefix}{shown}: the workflow has no workflow_dispatch inputs", job, step)
        elif name != "*" and name not in self.inputs:
            known = ", ".join(sorted(self.inputs)) or "none"
            self.error(f"{prefix}{shown}: '{name}' is not a declared workflow_dispatch input "
                       f"(inputs: {known})", job, step)


def check_file(path, make_rules, make_phony):
    checker = Checker(str(path), make_rules, make_phony)
    try:
        text = Path(path).read_text()
    except OSError as e:
        checker.error(f"cannot read: {e.strerror}")
        return checker.errors
    return checker.check_text(text)


# ---------------------------------------------------------------- self-test

SELF_TEST_MAKE_RULES = {"test", "build", "asan", "tsan"}
SELF_TEST_MAKE_PHONY = {"test", "build", "asan", "tsan", "ghost"}

VALID = r"""
name: valid
on:
  push:
    branches: [main]
  pull_request:
  schedule:
    - cron: "17 2 * * 1-5"
    - cron: "*/15 0,12 1 JAN-MAR sun"
  workflow_dispatch:
    inputs:
      subset:
        description: which jobs
        type: choice
        options: [all, quick]
        default: all
      long:
        type: boolean
        default: false
concurrency:
  group: ci-${{ github.ref }}
  cancel-in-progress: true
permissions:
  contents: read
jobs:
  build:
    if: github.event_name != 'workflow_dispatch' || inputs.subset == 'all'
    runs-on: ${{ matrix.os }}
    container:
      image: debian:12
      options: --privileged
    timeout-minutes: 30
    strategy:
      fail-fast: false
      matrix:
        os: [ubuntu-latest]
        sanitizer: [asan, tsan]
        include:
          - sanitizer: asan
            extra: "yes"
        exclude:
          - os: ubuntu-latest
            sanitizer: tsan
    outputs:
      result: ${{ steps.run.outputs.result }}
    steps:
      - uses: actions/checkout@v4
      - id: run
        name: make ${{ matrix.sanitizer }}
        run: |
          make -j 4 ${{ matrix.sanitizer }} ARCH=${{ matrix.extra }} 2>&1 | tee log
          cd build && make -C other whatever && FOO=1 make test
        timeout-minutes: 20
      - if: ${{ always() && steps.run.outcome == 'failure' }}
        uses: actions/upload-artifact@v4
        with:
          name: reports-${{ matrix.sanitizer }}-${{ github.event.inputs.long }}
          path: "**/duet-output/**"
  report:
    needs: build
    if: always()
    runs-on: [self-hosted, linux]
    steps:
      - run: echo "${{ needs.build.outputs.result }} '}}' ${{ format('{0}}}', 'x') }}"
      - uses: ./local/action
      - uses: docker://debian:12
"""

# (what is wrong, workflow, a part of the expected message)
INVALID = [
    ("no 'on'", """
name: x
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "missing top-level key 'on'"),
    ("YAML 1.1 'on' still a key, but 'jobs' empty", """
name: x
on: push
jobs: {}
""", "'jobs' must be a non-empty mapping"),
    ("not YAML", "name: x\non: [push\n", "not valid YAML"),
    ("duplicate key", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    runs-on: ubuntu-22.04
    steps:
      - run: make test
""", "duplicate key 'runs-on'"),
    ("cron with 6 fields", """
name: x
on:
  schedule:
    - cron: "0 2 * * * *"
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "has 6 fields, expected 5"),
    ("cron hour out of range", """
name: x
on:
  schedule:
    - cron: "0 24 * * *"
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "hour '24': 24 is out of range 0-23"),
    ("unknown event", """
name: x
on: [push, pull-request]
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "unknown event 'pull-request'"),
    ("choice input without options", """
name: x
on:
  workflow_dispatch:
    inputs:
      subset:
        type: choice
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "a choice input needs a non-empty list of options"),
    ("input type unknown", """
name: x
on:
  workflow_dispatch:
    inputs:
      n:
        type: integer
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "type 'integer' is not one of"),
    ("bad job id", """
name: x
on: push
jobs:
  1st:
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "job '1st': job id must match"),
    ("no runs-on", """
name: x
on: push
jobs:
  a:
    steps:
      - run: make test
""", "job 'a': missing 'runs-on'"),
    ("empty steps", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps: []
""", "job 'a': 'steps' must be a non-empty list"),
    ("unknown job key", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    timeout: 10
    steps:
      - run: make test
""", "job 'a': unknown key 'timeout'"),
    ("unknown step key", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - name: t
        run: make test
        timeout: 5
""", "job 'a': step 1 't': unknown key 'timeout'"),
    ("step with uses and run", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        run: make test
""", "must have exactly one of 'uses' and 'run' (it has both)"),
    ("step with neither", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - name: nothing
""", "step 1 'nothing': must have exactly one of 'uses' and 'run' (it has neither)"),
    ("uses without @ref", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout
""", "uses: 'actions/checkout' is not owner/repo@ref"),
    ("with on a run step", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: make test
        with:
          x: 1
""", "'with' is for uses steps, not run steps"),
    ("needs an unknown job", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    needs: [b]
    steps:
      - run: make test
""", "job 'a': needs: no job 'b' in this workflow"),
    ("timeout zero", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    timeout-minutes: 0
    steps:
      - run: make test
""", "timeout-minutes: must be a positive number"),
    ("matrix value not a list", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        os: ubuntu-latest
    steps:
      - run: make test
""", "strategy.matrix.os: must be a non-empty list"),
    ("matrix key not defined", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        arch: [s390x]
    steps:
      - run: make test ARCHS=${{ matrix.archs }}
""", "'archs' is not a key of this job's matrix (keys: arch)"),
    ("matrix without a strategy", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ matrix.os }}
""", "this job has no strategy.matrix"),
    ("matrix in a job's if", """
name: x
on: push
jobs:
  a:
    if: matrix.os == 'linux'
    runs-on: ubuntu-latest
    strategy:
      matrix:
        os: [linux]
    steps:
      - run: make test
""", "the matrix context is not available in a job's 'if'"),
    ("env in a job's if", """
name: x
on: push
jobs:
  a:
    if: ${{ env.LONG == 'yes' }}
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "the env context is not available in a job's 'if'"),
    ("matrix at the workflow level", """
name: x
on: push
concurrency: ci-${{ matrix.os }}
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "concurrency: ${{ matrix.os }}: the matrix context is not available at the workflow level"),
    ("undeclared input", """
name: x
on:
  workflow_dispatch:
    inputs:
      subset:
        type: string
jobs:
  a:
    if: inputs.subst == 'all'
    runs-on: ubuntu-latest
    steps:
      - run: make test
""", "'subst' is not a declared workflow_dispatch input"),
    ("github.event.inputs without workflow_dispatch", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ github.event.inputs.subset }}
""", "the workflow has no workflow_dispatch inputs"),
    ("unclosed expression", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ github.ref
""", "is not closed with '}}'"),
    ("unknown context", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ gihtub.ref }}
""", "unknown context 'gihtub'"),
    ("step id used before it exists", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ steps.later.outputs.x }}
      - id: later
        run: make test
""", "no step with id 'later' before this step"),
    ("make target missing", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - name: multiarch
        run: apt-get update && make multiarch ARCHS=s390x
""", "job 'a': step 1 'multiarch': `make multiarch`: no target 'multiarch' in the Makefile"),
    ("make target from the matrix missing", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        sanitizer: [asan, msan]
    steps:
      - run: make ${{ matrix.sanitizer }}
""", "`make msan`: no target 'msan' in the Makefile"),
    ("make target only declared .PHONY", """
name: x
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: make ghost
""", "'ghost' is declared .PHONY in the Makefile but has no rule"),
]


def self_test():
    failures = []
    errors = Checker("valid.yml", SELF_TEST_MAKE_RULES, SELF_TEST_MAKE_PHONY).check_text(VALID)
    if errors:
        failures.append("the valid workflow was rejected:\n    " + "\n    ".join(errors))
    for what, text, expected in INVALID:
        errors = Checker("bad.yml", SELF_TEST_MAKE_RULES, SELF_TEST_MAKE_PHONY).check_text(text)
        # Exactly one message: each snippet is valid but for the one thing it tests.
        if len(errors) != 1 or expected not in errors[0]:
            failures.append(f"{what}: expected one message with {expected!r}, got:\n    "
                            + ("\n    ".join(errors) or "(accepted)"))
    # The Makefile parser and the make command parser on their own.
    rules, phony = makefile_targets_from_text(
        ".PHONY: a b\nX := 1\nY ?= 2\na: b\n\t@echo $(X)\nb c:: ; true\n"
        "$(BUILD)/x: a\n%.o: %.c\ndefine T\nendef\nlong-name: \\\n  a\n")
    if rules != {"a", "b", "c", "long-name"} or phony != {"a", "b"}:
        failures.append(f"makefile_targets: got rules {sorted(rules)}, phony {sorted(phony)}")
    cases = {
        "make test": [["test"]],
        "cd x && make -j 3 -k soak FOO=1 > log 2>&1; make": [["soak"], []],
        "make -C elsewhere t; make -C . u; sudo make --jobs 2 v": [["u"], ["v"]],
        "echo make test; if make w; then time make x; fi": [["w"], ["x"]],
        "make build \\\n  EXTRA='a b' y": [["build", "y"]],
    }
    for script, expected in cases.items():
        got, _ = make_invocations(script)
        if got != expected:
            failures.append(f"make_invocations({script!r}): expected {expected}, got {got}")
    if failures:
        print("check_workflows.py --self-test: FAILED")
        for f in failures:
            print("  " + f)
        return 1
    print(f"check_workflows.py --self-test: ok (1 valid workflow accepted, {len(INVALID)} invalid "
          f"ones rejected with the one expected message, {len(cases) + 1} parser cases)")
    return 0


def makefile_targets_from_text(text):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".mk", delete=False) as f:
        f.write(text)
    try:
        return makefile_targets(f.name)
    finally:
        Path(f.name).unlink()


# ---------------------------------------------------------------- main


def main(argv):
    parser = argparse.ArgumentParser(
        description="Structural check of GitHub Actions workflow files (the subset duet uses).")
    parser.add_argument("workflows", nargs="*", help="workflow files (.github/workflows/*.yml)")
    parser.add_argument("--self-test", action="store_true",
                        help="run the checker on embedded valid and invalid snippets")
    parser.add_argument("--makefile", default=str(Path(__file__).resolve().parents[2] / "Makefile"),
                        help="the Makefile whose targets `make X` steps must name "
                             "(default: the repository's)")
    args = parser.parse_args(argv)
    if args.self_test:
        status = self_test()
        if not args.workflows:
            return status
    elif not args.workflows:
        parser.error("give workflow files, or --self-test")
    else:
        status = 0
    try:
        rules, phony = makefile_targets(args.makefile)
    except OSError as e:
        print(f"check_workflows.py: cannot read the Makefile {args.makefile}: {e.strerror}")
        return 2
    errors = []
    for path in args.workflows:
        errors += check_file(path, rules, phony)
    for e in errors:
        print(e)
    if errors:
        print(f"check_workflows.py: {len(errors)} error(s) in {len(args.workflows)} file(s)")
        return 1
    print(f"check_workflows.py: {len(args.workflows)} workflow file(s) valid: "
          + ", ".join(args.workflows))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
