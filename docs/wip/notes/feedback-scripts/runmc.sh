#!/bin/bash
cd /work/main
export CARGO_TARGET_DIR=/work/target-feedback INSTA_UPDATE=no
: > /tmp/mc_results.txt
for d in solutions/lesson0[1-6]*; do
  pkg=$(grep -m1 '^name' $d/Cargo.toml | cut -d'"' -f2)
  for f in $(grep -o '^misconception-[a-z0-9-]*' $d/Cargo.toml); do
    out=$(cargo test -p $pkg --features $f --no-fail-fast 2>&1)
    fails=$(echo "$out" | grep -oE '^test [a-z_:]+ \.\.\. FAILED' | awk '{print $2}' | sed 's/.*:://' | sort | tr '\n' ' ')
    err=$(echo "$out" | grep -m1 '^error\[' )
    echo "$pkg $f: $fails $err" >> /tmp/mc_results.txt
  done
done
echo DONE >> /tmp/mc_results.txt
