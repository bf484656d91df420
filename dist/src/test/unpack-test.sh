#!/usr/bin/env bash
# unpack-test.sh TAR_GZ ZIP VERSION [RUNTIME_TAR_GZ]: unpacks the distribution into a temporary directory and runs
# bin/probkit as a user without Maven would: from another directory, through symlinks, with Java
# from the PATH or from JAVA_HOME only, without Java, with a Java too old, with and without its
# class-data-sharing archive. Maven is off the PATH: the PATH given to bin/probkit holds only the
# few tools it uses and a `mvn` that records any call, which fails the test.
# Run by `mvn -B verify -Pdist` (dist/pom.xml) and so by .ci/run.
set -euo pipefail
tgz="$1" zip="$2" version="$3" runtime_tgz="${4:-}"
work="$(mktemp -d "${TMPDIR:-/tmp}/probkit-unpack-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "  ok    $*"; }
fail() { failed=$((failed + 1)); echo "  FAIL  $*"; }

# The JDK that runs this build, and a PATH of the launcher's tools without Maven or Java.
real_java="$(readlink -f "$(command -v java)")"
jdk="$(cd "$(dirname "$real_java")/.." && pwd)"
tools="$work/tools"
mkdir -p "$tools"
for t in bash env sed dirname readlink cat mkdir mv rm stat cksum tr cut head; do
  ln -s "$(command -v "$t")" "$tools/$t"
done
printf '#!/bin/sh\necho "mvn $*" >> "%s/mvn-called"\nexit 1\n' "$work" >"$tools/mvn"
chmod +x "$tools/mvn"
withjava="$work/withjava"
mkdir -p "$withjava"
ln -s "$jdk/bin/java" "$withjava/java"
nojava_path="$tools"
java_path="$withjava:$tools"

mkdir -p "$work/unpacked"
tar -xzf "$tgz" -C "$work/unpacked"
home="$work/unpacked/probkit-$version"
[ -x "$home/bin/probkit" ] && ok "tar.gz unpacks to probkit-$version/ with an executable bin/probkit" \
  || { fail "no executable $home/bin/probkit"; exit 1; }

# run NAME EXPECTED_EXIT ENV... -- ARGS...: runs the launcher with a clean environment (HOME and
# the caches in the temporary directory) from $work/elsewhere; leaves stdout, stderr in out, err.
mkdir -p "$work/elsewhere" "$work/home"
run() {
  local expect="$1"
  shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  set +e
  (cd "$work/elsewhere" && env -i HOME="$work/home" LANG=C.UTF-8 "${envs[@]}" "$@" </dev/null >"$work/out" 2>"$work/err")
  code=$?
  set -e
  out="$(cat "$work/out")" err="$(cat "$work/err")"
  [ "$code" = "$expect" ]
}

if run 0 PATH="$java_path" -- "$home/bin/probkit" --version && [ "$out" = "probkit $version" ] && [ -z "$err" ]; then
  ok "--version from another directory prints 'probkit $version'"
else fail "--version: exit $code, out '$out', err '$err'"; fi

cache="$work/home/.cache/probkit"
if ls "$cache"/cds-*.jsa >/dev/null 2>&1; then ok "the first run made a class-data-sharing archive in ~/.cache/probkit"
else fail "no archive in $cache: $(ls -la "$cache" 2>&1)"; fi

if run 0 PATH="$java_path" -- "$home/bin/probkit" demo bloom && [[ "$out" == *"add 'asha'   -> bits [10, 9]"* ]] \
    && [[ "$out" == *"query 'kiran'  -> bits [10, 7]: probably present (a false positive)"* ]] && [ -z "$err" ]; then
  ok "demo bloom prints the specification's walkthrough"
else fail "demo bloom: exit $code, out '$out', err '$err'"; fi

if run 0 PATH="$java_path" -- "$home/bin/probkit" demo && [[ "$out" == *"cricket: exact 5, estimate 5"* ]]; then
  ok "demo runs every walkthrough"
else fail "demo: exit $code, err '$err'"; fi

# The archive is used: the command line's own classes come from it.
if run 0 PATH="$java_path" JAVA_OPTS=-Xlog:class+load=info -- "$home/bin/probkit" --version \
    && grep -q 'io.github.probkit.cli.Main source: shared objects file' "$work/out"; then
  ok "later runs load probkit's classes from the archive"
else fail "classes not from the archive: $(grep 'cli.Main ' "$work/out" || true) err '$err'"; fi

# Through symlinks: an absolute one in another directory, and a relative chain of two.
mkdir -p "$work/bin" "$work/links"
ln -s "$home/bin/probkit" "$work/bin/probkit"
ln -s ../bin/probkit "$work/links/pk"
if run 0 PATH="$java_path" -- "$work/links/pk" --version && [ "$out" = "probkit $version" ]; then
  ok "--version through a relative chain of symlinks"
else fail "through symlinks: exit $code, out '$out', err '$err'"; fi
if run 0 PATH="$work/bin:$java_path" -- probkit demo bloom && [[ "$out" == *"add 'asha'"* ]]; then
  ok "demo bloom as 'probkit' found on the PATH through a symlink"
else fail "demo through a symlink on the PATH: exit $code, err '$err'"; fi

# A filter, with relative file names, from another directory.
printf 'alice\nbob\n' >"$work/elsewhere/keys.txt"
if run 0 PATH="$java_path" -- "$home/bin/probkit" filter create users.bin --expected 1000 --fpp 0.01 --keys keys.txt \
    && run 0 PATH="$java_path" -- "$home/bin/probkit" filter query users.bin alice carol \
    && [ "$out" = "$(printf 'alice\tpresent\ncarol\tabsent')" ]; then
  ok "filter create and query with relative paths"
else fail "filter: exit $code, out '$out', err '$err'"; fi

# Java from JAVA_HOME alone, none on the PATH.
if run 0 PATH="$nojava_path" JAVA_HOME="$jdk" -- "$home/bin/probkit" --version && [ "$out" = "probkit $version" ]; then
  ok "Java from JAVA_HOME, none on the PATH"
else fail "JAVA_HOME only: exit $code, out '$out', err '$err'"; fi

# No Java at all: one clear line, exit 1.
if run 1 PATH="$nojava_path" -- "$home/bin/probkit" --version && [[ "$err" == "probkit: Java 17 or later is needed"* ]] \
    && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ]; then
  ok "without Java: '$err'"
else fail "without Java: exit $code, err '$err'"; fi

# A Java too old (a stand-in JDK 11: its release file and a java that says so).
old="$work/jdk-11"
mkdir -p "$old/bin"
echo 'JAVA_VERSION="11.0.22"' >"$old/release"
printf '#!/bin/sh\necho "openjdk version \\"11.0.22\\" 2024-01-16" >&2\nexit 0\n' >"$old/bin/java"
chmod +x "$old/bin/java"
if run 1 PATH="$nojava_path" JAVA_HOME="$old" -- "$home/bin/probkit" --version \
    && [[ "$err" == *"Java 17 or later is needed"*"11.0.22"* ]]; then
  ok "with Java 11: '$err'"
else fail "with Java 11: exit $code, err '$err'"; fi
rm "$old/release" # then it asks `java -version`
if run 1 PATH="$nojava_path" JAVA_HOME="$old" -- "$home/bin/probkit" --version && [[ "$err" == *"11.0.22"* ]]; then
  ok "with Java 11 without a release file"
else fail "with Java 11 and no release file: exit $code, err '$err'"; fi

# A broken archive (another JVM's, a truncated file) is ignored, silently.
shopt -s nullglob
for jsa in "$cache"/cds-*.jsa; do
  chmod u+w "$jsa"
  head -c 4096 /dev/urandom >"$jsa"
done
if run 0 PATH="$java_path" -- "$home/bin/probkit" --version && [ "$out" = "probkit $version" ] && [ -z "$err" ]; then
  ok "a corrupt archive is ignored without a word"
else fail "corrupt archive: exit $code, out '$out', err '$err'"; fi
rm -rf "$cache"
if run 0 PATH="$java_path" PROBKIT_CDS=off -- "$home/bin/probkit" --version && [ ! -e "$cache" ]; then
  ok "PROBKIT_CDS=off makes no archive"
else fail "PROBKIT_CDS=off: exit $code, err '$err'"; fi
# No HOME and no XDG_CACHE_HOME: no archive, and no error.
if (cd "$work/elsewhere" && env -i PATH="$java_path" "$home/bin/probkit" --version >"$work/out" 2>"$work/err") \
    && [ "$(cat "$work/out")" = "probkit $version" ] && [ ! -s "$work/err" ]; then
  ok "without HOME"
else fail "without HOME: $(cat "$work/err")"; fi

# Man pages, one per command, and the completion script.
pages="$(ls "$home/man/man1" | wc -l)"
if [ -f "$home/man/man1/probkit.1" ] && [ -f "$home/man/man1/probkit-filter-query.1" ] && [ "$pages" -ge 20 ] \
    && grep -qF '.TH "PROBKIT\-FILTER\-QUERY" "1"' "$home/man/man1/probkit-filter-query.1"; then
  ok "$pages man pages (man/man1/probkit.1, probkit-filter-query.1, ...)"
else fail "man pages: $(ls "$home/man/man1" | head)"; fi
if bash -c "source '$home/completion/probkit.bash' && complete -p probkit" >/dev/null 2>&1; then
  ok "bash completion registers for probkit"
else fail "completion/probkit.bash does not register a completion"; fi
missing=""
for f in LICENSE NOTICE README.md CHANGELOG.md licenses/LGPL-2.1.txt licenses/MIT.txt; do
  [ -s "$home/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "LICENSE, NOTICE, README.md, CHANGELOG.md, licenses/" || fail "missing:$missing"
# Every bundled library is named in LICENSE (a new dependency needs its licence written there).
unlisted=""
for j in "$home"/lib/*.jar; do
  name="$(basename "$j" .jar | sed -E 's/-[0-9][^-]*(-[A-Za-z0-9.]+)?$//')" # the artifactId
  case "$name" in probkit-*) continue ;; esac
  grep -q "$name" "$home/LICENSE" || unlisted="$unlisted $name"
done
[ -z "$unlisted" ] && ok "LICENSE names every bundled library" || fail "not in LICENSE:$unlisted"

# The zip holds the same files; where unzip exists, unpacked it runs too.
tar_list="$(tar -tzf "$tgz" | grep -v '/$' | sort)"
zip_list="$("$jdk/bin/jar" tf "$zip" | grep -v '/$' | sort)"
if [ "$tar_list" = "$zip_list" ]; then ok "the zip holds the same $(echo "$zip_list" | wc -l) files"
else fail "the zip differs: $(diff <(echo "$tar_list") <(echo "$zip_list") | head -5)"; fi
if command -v unzip >/dev/null; then
  mkdir -p "$work/unzipped"
  unzip -q "$zip" -d "$work/unzipped"
  if run 0 PATH="$java_path" -- "$work/unzipped/probkit-$version/bin/probkit" --version && [ "$out" = "probkit $version" ]; then
    ok "the zip, unpacked with unzip, runs"
  else fail "zip: exit $code, out '$out', err '$err'"; fi
fi

# The variant with its own Java runtime (-Djlink), when it was built: no Java anywhere else.
if [ -n "$runtime_tgz" ] && [ -f "$runtime_tgz" ]; then
  mkdir -p "$work/runtime"
  tar -xzf "$runtime_tgz" -C "$work/runtime"
  if run 0 PATH="$nojava_path" -- "$work/runtime/probkit-$version/bin/probkit" demo bloom && [[ "$out" == *"add 'asha'"* ]]; then
    ok "the variant with a runtime runs without any other Java ($(du -sh "$runtime_tgz" | cut -f1) archive)"
  else fail "runtime variant: exit $code, err '$err'"; fi
fi

if [ -e "$work/mvn-called" ]; then
  fail "Maven was called: $(cat "$work/mvn-called")"
else ok "Maven was never called"; fi
echo "unpack-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
