#!/usr/bin/env bash
# The steps of the mcpcheck GitHub Action (action.yml), kept here so that
# they can be tested (action/action_test.go). Every input arrives in an
# environment variable and is only ever used quoted: nothing is evaluated.
#
#   mcpcheck-action.sh plan         release or source: how this action ref gets its mcpcheck
#   mcpcheck-action.sh install      install the released binary (checksum verified, tool
#                                   cache) or build from the action's own source
#   mcpcheck-action.sh go-version   which Go builds mcpcheck: INPUT_GO_VERSION, else go.mod
#   mcpcheck-action.sh build        build mcpcheck from the action's own source
#   mcpcheck-action.sh run          run mcpcheck once; set the outputs the later steps read
#   mcpcheck-action.sh upload-failed  warn that code scanning refused the upload (auto)
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
  command -v go >/dev/null 2>&1 ||
    die "building mcpcheck from ${ACTION_REF:-this checkout} needs Go on the runner (GitHub-hosted runners have it); or use the action at a release tag, which installs a released binary"
  # The job's own Go builds it, by absolute path and with caches of the
  # action's own: nothing is added to PATH, no Go setting of the job
  # changes. go-version, when given, is the toolchain the go command
  # fetches (GOTOOLCHAIN); by default go.mod's rules apply.
  local env=(env -u GOFLAGS -u GOOS -u GOARCH)
  [ -z "${MCPCHECK_GOMODCACHE:-}" ] || env+=("GOMODCACHE=$MCPCHECK_GOMODCACHE")
  [ -z "${MCPCHECK_GOCACHE:-}" ] || env+=("GOCACHE=$MCPCHECK_GOCACHE")
  [ -z "${INPUT_GO_VERSION:-}" ] || env+=("GOTOOLCHAIN=go${INPUT_GO_VERSION#go}")
  # VCS stamping names the revision in the SARIF version; git may refuse a
  # checkout it does not own (containers), so build without it then.
  (cd "$action_dir" && "${env[@]}" go build -trimpath -o "$dir/mcpcheck" ./cmd/mcpcheck) ||
    (cd "$action_dir" && "${env[@]}" go build -trimpath -buildvcs=false -o "$dir/mcpcheck" ./cmd/mcpcheck) ||
    die "building mcpcheck from $action_dir failed"
  "$dir/mcpcheck" version
  output bin "$dir/mcpcheck"
  output installed "source"
}

# release_version prints the version of a release tag (v1.2.3 → 1.2.3),
# or fails for any other ref: a commit SHA, a branch, a local checkout.
release_version() {
  local ref=$1
  [[ $ref =~ ^v([0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?)$ ]] || return 1
  echo "${BASH_REMATCH[1]}"
}

plan() {
  local version
  if version=$(release_version "${ACTION_REF:-}"); then
    output mode release
    output version "$version"
    return 0
  fi
  # A commit (or a branch, or uses: ./): built from this checkout, with Go
  # module and build caches of the action's own, keyed on its go.sum.
  local base=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcpcheck-go sum
  sum=$(sha256 "$action_dir/go.sum")
  output mode source
  output gomodcache "$base/mod"
  output gocache "$base/build"
  output cache-key "mcpcheck-go-${RUNNER_OS:-unknown}-${RUNNER_ARCH:-unknown}-${INPUT_GO_VERSION:-gomod}-${sum:0:16}"
}

# sha256 FILE prints the file's SHA-256 (sha256sum on Linux and Windows'
# Git Bash, shasum on macOS).
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | awk '{print $1}'
  else
    shasum -a 256 "$1" | awk '{print $1}'
  fi
}

# platform prints the release's os_arch for this runner.
platform() {
  local os arch
  case ${RUNNER_OS:-$(uname -s)} in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) die "no mcpcheck release for the runner OS ${RUNNER_OS:-$(uname -s)}" ;;
  esac
  case ${RUNNER_ARCH:-$(uname -m)} in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | arm64 | aarch64) arch=arm64 ;;
  *) die "no mcpcheck release for the runner architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
  esac
  echo "${os}_${arch}"
}

# install_release puts the released mcpcheck of $ACTION_REF in the runner's
# tool cache (RUNNER_TOOL_CACHE/mcpcheck/VERSION/ARCH, complete when its
# .complete marker exists, as actions/tool-cache lays it out): downloaded
# once, its archive's SHA-256 checked against the release's checksums.txt.
install_release() {
  local version plat ext exe="" archive base cache tmp want got bin
  version=$(release_version "${ACTION_REF:-}") || die "ref ${ACTION_REF:-} is not a release tag"
  plat=$(platform)
  ext=tar.gz
  if [[ $plat == windows_* ]]; then
    ext=zip exe=.exe
  fi
  archive="mcpcheck_${version}_${plat}.${ext}"
  cache="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}/tool-cache}/mcpcheck/$version/${plat#*_}"
  bin="$cache/mcpcheck$exe"
  if [ -f "$cache.complete" ] && [ -x "$bin" ]; then
    echo "mcpcheck $version from the tool cache"
  else
    base=${MCPCHECK_RELEASE_URL:-${GITHUB_SERVER_URL:-https://github.com}/${ACTION_REPOSITORY:-mcpcheck/mcpcheck}/releases/download/${ACTION_REF}}
    tmp=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcpcheck-release.XXXXXX")
    curl -fsSL --retry 3 --proto '=https,file' -o "$tmp/$archive" "$base/$archive" ||
      die "downloading $base/$archive failed"
    curl -fsSL --retry 3 --proto '=https,file' -o "$tmp/checksums.txt" "$base/checksums.txt" ||
      die "downloading $base/checksums.txt failed: the archive cannot be verified"
    want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/checksums.txt")
    [ -n "$want" ] || die "checksums.txt of $ACTION_REF has no line for $archive"
    got=$(sha256 "$tmp/$archive")
    [ "$got" = "$want" ] || die "$archive has SHA-256 $got, but checksums.txt says $want: not installing it"
    mkdir -p "$tmp/x"
    if [ "$ext" = zip ]; then
      unzip -q "$tmp/$archive" -d "$tmp/x" || die "unpacking $archive failed"
    else
      tar -xzf "$tmp/$archive" -C "$tmp/x" || die "unpacking $archive failed"
    fi
    local found
    found=$(find "$tmp/x" -maxdepth 2 -type f -name "mcpcheck$exe" | head -n 1)
    [ -n "$found" ] || die "$archive holds no mcpcheck$exe"
    rm -rf "$cache" "$cache.complete"
    mkdir -p "$cache"
    cp "$found" "$bin"
    chmod +x "$bin"
    touch "$cache.complete"
    rm -rf "$tmp"
    echo "mcpcheck $version downloaded and verified (SHA-256 $got)"
  fi
  "$bin" version
  output bin "$bin"
  output installed "release"
}

install() {
  if release_version "${ACTION_REF:-}" >/dev/null; then
    install_release
  else
    build
  fi
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
  local upload fail_on_findings notes required=false
  case ${INPUT_UPLOAD_SARIF:-auto} in
  auto | Auto | AUTO) upload=true ;; # tried; a refusal warns (upload-failed)
  *)
    upload=$(boolean upload-sarif "${INPUT_UPLOAD_SARIF:-}") || {
      fail_run "upload-sarif is ${INPUT_UPLOAD_SARIF:-}, not auto, true or false"
      return 0
    }
    required=$upload
    ;;
  esac
  notes=$(boolean sarif-notes "${INPUT_SARIF_NOTES:-false}") || {
    fail_run "sarif-notes is ${INPUT_SARIF_NOTES:-}, not true or false"
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
  local sarif="$dir/mcpcheck.sarif" text="$dir/mcpcheck.txt" json="$dir/mcpcheck.json" html=""
  local cmd=("$bin" check --format github --output "text=$text" --output "sarif=$sarif" --output "json=$json")
  # No fail-on: mcpcheck's own default, which the config file's fail-on and
  # a baseline directory (drift) shape.
  [ -z "${INPUT_FAIL_ON:-}" ] || cmd+=(--fail-on "$INPUT_FAIL_ON")
  [ "$notes" = true ] || cmd+=(--sarif-gated-only)
  [ -z "${INPUT_JUNIT:-}" ] || cmd+=(--output "junit=$INPUT_JUNIT")
  if [ -n "${INPUT_HTML_ARTIFACT:-}" ]; then
    html="$dir/mcpcheck.html"
    cmd+=(--output "html=$html")
  fi
  [ -z "${INPUT_BASELINE:-}" ] || cmd+=(--baseline "$INPUT_BASELINE")
  [ -z "${INPUT_CATEGORY:-}" ] || cmd+=(--category "$INPUT_CATEGORY")
  [ -z "${INPUT_NEW_FROM:-}" ] || cmd+=(--new-from "$INPUT_NEW_FROM")
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
    [ ! -s "$json" ] || output json "$json"
    [ -z "${INPUT_JUNIT:-}" ] || output junit "$INPUT_JUNIT"
    if [ -n "$html" ] && [ -s "$html" ]; then
      output html "$html"
      output html-artifact "$INPUT_HTML_ARTIFACT"
    fi
    counts "$json"
    [ -z "${INPUT_NEW_FROM:-}" ] || output new-findings "$(new_findings "$json")"
  else
    upload=false required=false # exit 2: nothing was checked, there is nothing to upload
  fi
  output upload "$upload"
  output upload-required "$required"
}

# new_findings counts the findings of the JSON report that its --new-from
# report did not hold, each with the repeats folded into it ("also").
new_findings() {
  awk '
    /^        \{$/ { also = 0 }
    /^          "also": [0-9]+/ { sub(/,$/, ""); split($0, kv, ": "); also = kv[2] + 0 }
    /^          "existing": false/ { n += 1 + also }
    END { print n + 0 }
  ' "$1"
}

# counts sets count-SIGNAL for every signal (and count-suppressed), summed
# over the sessions of the JSON report, which writes each session's counts
# as one "counts" object, a key a line, every signal present.
counts() {
  [ -s "$1" ] || return 0
  local name value
  while IFS=' ' read -r name value; do
    output "count-$name" "$value"
  done < <(awk '
    /^      "counts": \{/ { inside = 1; next }
    inside && /^      \}/ { inside = 0; next }
    inside && match($0, /"[a-z-]+": [0-9]+/) {
      split(substr($0, RSTART, RLENGTH), kv, "\": ")
      k = substr(kv[1], 2); if (!(k in sum)) order[n++] = k; sum[k] += kv[2]
    }
    /^      "suppressed": [0-9]+/ { sub(/,$/, ""); split($0, kv, ": "); sup += kv[2] }
    END { for (i = 0; i < n; i++) print order[i], sum[order[i]]; print "suppressed", sup + 0 }
  ' "$1")
}

upload_failed() {
  echo "::warning title=mcpcheck SARIF upload::code scanning did not accept the SARIF report (upload-sarif: auto). It needs code scanning enabled for the repository (public repositories, or GitHub Advanced Security / Code Security on private ones) and the job permissions security-events: write, actions: read and contents: read. The findings are still in the annotations, the job summary and the log; set upload-sarif: false to stop trying, or true to fail the job when the upload fails."
}

# fail_run records a run that never started: outcome error, exit code 2.
fail_run() {
  [ -z "$1" ] || echo "::error title=mcpcheck action::$1" >&2
  output outcome error
  output exit-code 2
  output upload false
  output upload-required false
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
plan) plan ;;
install) install ;;
go-version) go_version ;;
build) build ;;
run) run ;;
upload-failed) upload_failed ;;
decide) decide ;;
*)
  echo "usage: $0 plan|install|go-version|build|run|upload-failed|decide" >&2
  exit 2
  ;;
esac
