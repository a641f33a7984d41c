#!/usr/bin/env bash
# The examples as a user gets them: examples/ and examples-spark/ copied out of the tree, poms untouched, built with
# Maven against the LGC4J artifacts in the local repository, as README's "Your model, your data" runs them:
#   1. lgc-bom's versions are the root pom's and it lists every published module; examples-spark's Spark properties
#      are lgc-spark's (written out, not inherited)
#   2. examples:       mvn package (main and test classes, the enforcer's dependency convergence)
#   3. examples:       its class path (mvn dependency:build-classpath), MakeCsv data 20000 4000, TrainOnCsv data 3
#   4. examples-spark: mvn package, and its class path
# A failing step is named, with the end of its log, and the script exits 1.
#
# Usage: scripts/examples-standalone.sh [MAVEN_ARG...]     e.g. -Dmaven.repo.local=/path/to/repository
# Install first: mvn -B -DskipTests install (scripts/test.sh runs this script after its mvn -B install).
# The copies live in a temporary directory (KEEP=1 keeps it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mvn_args=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/lgc-examples-standalone.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "examples-standalone: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
started=$SECONDS

fail() {  # STEP LOG
  echo "examples-standalone: FAILED at step '$1' (log: $2)" >&2
  [ -f "$2" ] && tail -n 40 "$2" >&2
  trap - EXIT   # keep the copies and logs for whoever reads the failure
  echo "examples-standalone: FAILED at step '$1'; the copies and logs are in $work" >&2
  exit 1
}

run() {  # STEP DIR COMMAND...: runs COMMAND in DIR, its output in a log of the step's own
  local step=$1 dir=$2 log; shift 2
  log="$work/logs/$(echo "$step" | tr -c 'a-zA-Z0-9\n' '-').log"
  mkdir -p "$work/logs"
  echo "examples-standalone: $step"
  (cd "$dir" && "$@") > "$log" 2>&1 || fail "$step" "$log"
}

# 1. The BOM pins what the root pom builds and tests with: every <x.version> property in lgc-bom/pom.xml has the
#    value of the root's property of the same name, and lgc4j.version is the root's own version.
prop() { sed -n "s|^ *<$1>\(.*\)</$1>.*|\1|p" "$2" | head -n 1; }
bom=$root/lgc-bom/pom.xml
project_version=$(sed -n '0,/<version>/s|^ *<version>\(.*\)</version>.*|\1|p' "$root/pom.xml")
for name in $(sed -n '/<properties>/,/<\/properties>/s|^ *<\([A-Za-z0-9.-]*\)>.*</\1>.*|\1|p' "$bom"); do
  want=$(prop "$name" "$root/pom.xml")
  [ "$name" = lgc4j.version ] && want=$project_version
  got=$(prop "$name" "$bom")
  [ "$got" = "$want" ] || { echo "lgc-bom/pom.xml: $name is $got, the root pom.xml builds with ${want:-nothing of that name}" \
      > "$work/bom.log"; fail "lgc-bom pins the root's versions" "$work/bom.log"; }
done

# ... and lists every module of the root but itself and the examples (their directories are named as their
#     artifactIds; the benchmarks are listed: lgc-cli depends on them for lgc bench).
for module in $(sed -n 's|^ *<module>\(.*\)</module>.*|\1|p' "$root/pom.xml"); do
  case $module in lgc-bom|examples|examples-spark) continue ;; esac
  grep -q "<artifactId>$module</artifactId>" "$bom" || {
    echo "lgc-bom/pom.xml does not list the root's module $module" > "$work/bom.log"
    fail "lgc-bom lists every published module" "$work/bom.log"; }
done

# ... and examples-spark's Spark is lgc-spark's: every property both poms define has one value.
for name in $(sed -n '/<properties>/,/<\/properties>/s|^ *<\([A-Za-z0-9.-]*\)>.*</\1>.*|\1|p' "$root/examples-spark/pom.xml"); do
  theirs=$(prop "$name" "$root/lgc-spark/pom.xml")
  [ -z "$theirs" ] || [ "$theirs" = "$(prop "$name" "$root/examples-spark/pom.xml")" ] || {
    echo "examples-spark/pom.xml: $name differs from lgc-spark/pom.xml's ($theirs)" > "$work/spark.log"
    fail "examples-spark's Spark properties are lgc-spark's" "$work/spark.log"; }
done

# The modules as a user copies them: their sources and poms, without the tree's build output.
for module in examples examples-spark; do
  mkdir -p "$work/$module"
  tar -C "$root/$module" --exclude=./target -cf - . | tar -C "$work/$module" -xf -
done

# 2-3. examples: built on its own, then the README's commands
ex=$work/examples
run "examples: mvn package" "$ex" mvn -B -q package -DskipTests "${mvn_args[@]}"
run "examples: class path" "$ex" mvn -B -q dependency:build-classpath -DincludeScope=runtime \
  -Dmdep.outputFile=target/classpath.txt "${mvn_args[@]}"
cp="$ex/target/classes:$(cat "$ex/target/classpath.txt")"
export OMP_NUM_THREADS=1
run "examples: MakeCsv" "$ex" java -cp "$cp" io.lgc4j.examples.MakeCsv data 20000 4000
run "examples: TrainOnCsv" "$ex" java -Xmx1g -cp "$cp" io.lgc4j.examples.TrainOnCsv data 3 model.zip
train_log="$work/logs/examples--TrainOnCsv.log"
grep -q 'endpoint 0: .* test accuracy .*model saved to model.zip' "$train_log" && [ -f "$ex/model.zip" ] \
  || fail "examples: TrainOnCsv trained and saved the model" "$train_log"
grep -o 'endpoint 0: .*' "$train_log"

# 4. examples-spark: built on its own (lgc-examples from the local repository, as the copy of examples/ would be)
sp=$work/examples-spark
run "examples-spark: mvn package" "$sp" mvn -B -q package -DskipTests "${mvn_args[@]}"
run "examples-spark: class path" "$sp" mvn -B -q dependency:build-classpath -DincludeScope=compile \
  -Dmdep.outputFile=target/classpath.txt "${mvn_args[@]}"
grep -q 'spark-mllib_2.12' "$sp/target/classpath.txt" \
  || fail "examples-spark: class path has Spark" "$work/logs/examples-spark--class-path.log"

echo "examples-standalone: both examples build and run on their own ($((SECONDS - started)) s)"
