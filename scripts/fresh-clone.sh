# Sourced by the benchmarks: clones the committed tree into a temporary folder `$dir` (removed on
# exit), enters the clone (`$dir/course`) and gives it its own target folder (`$dir/target`), with
# the dependencies fetched and no inherited RUSTFLAGS.
src=$(git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --show-toplevel)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git clone -q "$src" "$dir/course"
cd "$dir/course"
export CARGO_TARGET_DIR="$dir/target" NO_COLOR=1
unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS
cargo fetch --locked -q
