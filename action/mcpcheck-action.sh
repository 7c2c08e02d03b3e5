#!/usr/bin/env bash
# The steps of the mcpcheck GitHub Action (action.yml), kept here so that
# they can be tested (action/action_test.go). Every input arrives in an
# environment variable and is only ever used quoted: nothing is evaluated.
#
#   mcpcheck-action.sh go-version   which Go builds mcpcheck: INPUT_GO_VERSION, else go.mod
#   mcpcheck-action.sh build        build mcpcheck from the action's own source
#   mcpcheck-action.sh run          run mcpcheck once; set the outputs the later steps read
#   mcpcheck-action.sh decide       fail the job or not, from the run's exit code
#
# Works with the bash 3.2 of macOS runners (no mapfile, no ${x,,}).
set -euo pipefail

action_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() {
  echo "::error title=mcpcheck action::$*" >&2
  exit 1
}

# output NAME VALUE appends a step output in the multi-line form, so that no
# value can add an output of its own.
output() {
  local name=$1 value=$2 delim
  [ -n "${GITHUB_OUTPUT:-}" ] || die "GITHUB_OUTPUT is not set: run this script from the action"
  delim="mcpcheck_${RANDOM}${RANDOM}${RANDOM}"
  while [[ $value == *"$delim"* ]]; do delim="${delim}_${RANDOM}"; done
  printf '%s<<%s\n%s\n%s\n' "$name" "$delim" "$value" "$delim" >>"$GITHUB_OUTPUT"
}

# boolean NAME VALUE prints true or false for an input that must be one.
boolean() {
  case $2 in
  true | True | TRUE) echo true ;;
  false | False | FALSE) echo false ;;
  *) return 1 ;;
  esac
}

go_version() {
  local v=${INPUT_GO_VERSION:-}
  if [ -z "$v" ]; then
    # toolchain goX.Y.Z wins over the go line, as the go command itself decides.
    v=$(sed -n 's/^toolchain go\([0-9][0-9.a-z]*\)[[:space:]]*$/\1/p' "$action_dir/go.mod" | head -n 1)
    [ -n "$v" ] || v=$(sed -n 's/^go \([0-9][0-9.a-z]*\)[[:space:]]*$/\1/p' "$action_dir/go.mod" | head -n 1)
    [ -n "$v" ] || die "no go line in $action_dir/go.mod; set the go-version input"
  fi
  output go-version "$v"
}

build() {
  local dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
  dir=$(mktemp -d "$dir/mcpcheck-bin.XXXXXX")
  # VCS stamping names the revision in the SARIF version; git may refuse a
  # checkout it does not own (containers), so build without it then.
  (cd "$action_dir" && go build -trimpath -o "$dir/mcpcheck" ./cmd/mcpcheck) ||
    (cd "$action_dir" && go build -trimpath -buildvcs=false -o "$dir/mcpcheck" ./cmd/mcpcheck) ||
    die "building mcpcheck from $action_dir failed"
  "$dir/mcpcheck" version
  output bin "$dir/mcpcheck"
}

# captures expands INPUT_SESSION into the array `files`: one path or glob
# per line; a path is taken as it is (spaces and all), a glob must match.
captures() {
  files=()
  local line matches
  local IFS= # no word splitting anywhere below: a path is one word
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    # trim the white space around the path, never inside it
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    [ -n "$line" ] || continue
    if [ -e "$line" ] || [[ $line != *[\*\?\[]* ]]; then
      files+=("$line") # a path; mcpcheck says so if it does not exist
      continue
    fi
    # Unquoted on purpose, with word splitting off: pathname expansion
    # only (no command substitution or variable expansion happens here).
    shopt -s nullglob
    shopt -s globstar 2>/dev/null || true
    # shellcheck disable=SC2206
    matches=($line)
    shopt -u nullglob
    [ ${#matches[@]} -gt 0 ] || {
      echo "::error title=mcpcheck action::session: the pattern $(printf '%q' "$line") matches no file" >&2
      return 1
    }
    files+=("${matches[@]}")
  done <<<"${INPUT_SESSION:-}"
  [ ${#files[@]} -gt 0 ] || {
    echo "::error title=mcpcheck action::session is empty: give capture paths or globs, one per line" >&2
    return 1
  }
}

# extra_args splits INPUT_ARGS into the array `extra` as a shell splits
# words (quotes and backslashes honoured) but without expanding anything:
# xargs does the splitting. xargs never makes an argument with a line feed
# in it, so one argument per line is unambiguous.
extra_args() {
  extra=()
  [[ ${INPUT_ARGS:-} == *[![:space:]]* ]] || return 0
  local parsed arg
  # The trailing "." keeps a last empty argument from being eaten by $( ).
  parsed=$(printf '%s\n' "$INPUT_ARGS" | xargs printf '%s\n' && echo .) || {
    echo "::error title=mcpcheck action::args: unbalanced quotes in $(printf '%q' "$INPUT_ARGS")" >&2
    return 1
  }
  parsed=${parsed%.}
  while IFS= read -r arg; do
    extra+=("$arg")
  done <<<"${parsed%$'\n'}"
}

run() {
  local bin=${MCPCHECK_BIN:-}
  if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    die "MCPCHECK_BIN ($bin) is not an executable mcpcheck"
  fi
  local upload fail_on_findings
  upload=$(boolean upload-sarif "${INPUT_UPLOAD_SARIF:-true}") || {
    fail_run "upload-sarif is ${INPUT_UPLOAD_SARIF:-}, not true or false"
    return 0
  }
  fail_on_findings=$(boolean fail-on-findings "${INPUT_FAIL_ON_FINDINGS:-true}") || {
    fail_run "fail-on-findings is ${INPUT_FAIL_ON_FINDINGS:-}, not true or false"
    return 0
  }
  : "$fail_on_findings" # checked here, read by decide
  local files extra
  if ! captures || ! extra_args; then
    fail_run ""
    return 0
  fi

  local dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
  dir=$(mktemp -d "$dir/mcpcheck.XXXXXX")
  local sarif="$dir/mcpcheck.sarif" text="$dir/mcpcheck.txt"
  local cmd=("$bin" check --format github --output "text=$text" --output "sarif=$sarif")
  # No fail-on: mcpcheck's own default, which the config file's fail-on and
  # a baseline directory (drift) shape.
  [ -z "${INPUT_FAIL_ON:-}" ] || cmd+=(--fail-on "$INPUT_FAIL_ON")
  [ -z "${INPUT_JUNIT:-}" ] || cmd+=(--output "junit=$INPUT_JUNIT")
  [ -z "${INPUT_BASELINE:-}" ] || cmd+=(--baseline "$INPUT_BASELINE")
  [ -z "${INPUT_CATEGORY:-}" ] || cmd+=(--category "$INPUT_CATEGORY")
  [ ${#extra[@]} -eq 0 ] || cmd+=("${extra[@]}")
  cmd+=(-- "${files[@]}")

  # Annotations and the job summary come from this run's stdout; the text
  # report follows in the log.
  local code=0
  "${cmd[@]}" || code=$?
  if [ -s "$text" ]; then
    # Capture text in the report must not be read as workflow commands.
    local token="mcpcheck-${RANDOM}${RANDOM}${RANDOM}"
    echo "::group::mcpcheck report"
    echo "::stop-commands::$token"
    cat "$text"
    echo "::$token::"
    echo "::endgroup::"
  fi

  local outcome=error
  case $code in
  0) outcome=passed ;;
  1) outcome=findings ;;
  esac
  output outcome "$outcome"
  output exit-code "$code"
  if { [ "$code" = 0 ] || [ "$code" = 1 ]; } && [ -s "$sarif" ]; then
    output sarif "$sarif"
  else
    upload=false # exit 2: nothing was checked, there is nothing to upload
  fi
  output upload "$upload"
}

# fail_run records a run that never started: outcome error, exit code 2.
fail_run() {
  [ -z "$1" ] || echo "::error title=mcpcheck action::$1" >&2
  output outcome error
  output exit-code 2
  output upload false
}

decide() {
  local code=${EXIT_CODE:-} fail
  fail=$(boolean fail-on-findings "${INPUT_FAIL_ON_FINDINGS:-true}") || die "fail-on-findings is ${INPUT_FAIL_ON_FINDINGS:-}, not true or false"
  case $code in
  0)
    echo "mcpcheck passed."
    ;;
  1)
    if [ "$fail" = true ]; then
      die "mcpcheck found what the gate fails on; see the annotations, the job summary and the log"
    fi
    echo "::warning title=mcpcheck::mcpcheck found what the gate fails on; fail-on-findings is false, so the job goes on"
    ;;
  *)
    die "mcpcheck checked nothing (exit code ${code:-none}); the log above says why"
    ;;
  esac
}

case ${1:-} in
go-version) go_version ;;
build) build ;;
run) run ;;
decide) decide ;;
*)
  echo "usage: $0 go-version|build|run|decide" >&2
  exit 2
  ;;
esac
