# The Zephyr workspace for the scripts that build or run the firmware (sourced): the caller's when
# ZEPHYR_BASE is set (a west workspace), else the offline one beside the repository
# (../shared/zephyr/setup.sh lays it out once and prints its environment); its JerryScript is the
# engine the host tools are built with too.
if [ -z "${ZEPHYR_BASE:-}" ]; then
	eval "$(bash "$(dirname "${BASH_SOURCE[0]}")/../../../shared/zephyr/setup.sh")"
fi
export JERRYSCRIPT_DIR="${JERRYSCRIPT_DIR:-$ZEPHYR_BASE/../modules/lib/jerryscript}"
