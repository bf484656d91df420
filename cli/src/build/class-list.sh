#!/usr/bin/env bash
# class-list.sh JAVA CLASSPATH OUT: runs typical probkit commands with -XX:DumpLoadedClassList and
# merges the lists into OUT (cli/target/probkit.classlist, made by `mvn package` of cli), the class
# list from which ./probkit and the distribution's bin/probkit make a class-data-sharing archive
# (java -Xshare:dump) for the JVM they run on. A list of class names serves any JDK 17 or later;
# an archive serves only the JVM build and the jar paths that made it, so it is made where it runs.
set -euo pipefail
java="$1" cp="$2" out="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
n=0
train() {
  n=$((n + 1))
  (cd "$work" && "$java" -XX:DumpLoadedClassList="$work/$n.classlist" -cp "$cp" io.github.probkit.cli.Main "$@" \
    </dev/null >/dev/null 2>"$work/$n.err") || { echo "class-list.sh: probkit $* failed:" >&2; cat "$work/$n.err" >&2; exit 1; }
}
seq -f 'user:%.0f' 1 2000 > "$work/keys.txt"
train --version
train --help
train demo
train filter create f.bin --expected 10000 --fpp 0.01 --keys keys.txt
train filter add f.bin user:1 user:2
train filter query f.bin user:1 nobody
train filter info f.bin --json
train filter create c.bin --type cuckoo --expected 10000 --fpp 0.01 --keys keys.txt
train cms create t.cms --epsilon 0.001 --delta 0.01
train cms add t.cms --items keys.txt
train cms query t.cms user:1
train hll create u.hll
train hll add u.hll --items keys.txt
train hll count u.hll
train distinct keys.txt
train top -k 3 keys.txt
train dedupe keys.txt
# One list: the same class once (each list numbers its classes with ids of its own, dropped here,
# as the built-in loaders need none), and no lambda proxy of picocli: picocli's classes are of the
# Java 5 class-file format, which a static archive keeps only if nothing links them at dump time,
# and archiving a lambda that implements one of its interfaces would.
# Sorted, so that the order in which threads happened to load classes does not change the file
# (the classes first, then the lambda lines, which name them).
mkdir -p "$(dirname "$out")"
cat "$work"/*.classlist | grep -v '^#' | sed -E 's/ id: [0-9]+$//' | grep -v '^@lambda-proxy .*picocli/' \
  | LC_ALL=C sort -u >"$work/merged"
{ grep -v '^@' "$work/merged"; grep '^@' "$work/merged"; } >"$out"
echo "class-list.sh: $(grep -vc '^@' "$out") classes from $n runs in $out"
