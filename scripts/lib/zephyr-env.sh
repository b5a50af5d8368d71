# The Zephyr workspace for the scripts that build or run the firmware (sourced): the caller's when
# ZEPHYR_BASE is set (a west workspace), else the offline one beside the repository
# (../shared/zephyr/setup.sh lays it out once and prints its environment); its JerryScript is the
# engine the host tools are built with too.
if [ -z "${ZEPHYR_BASE:-}" ]; then
	beacon_zephyr_setup="$(dirname "${BASH_SOURCE[0]}")/../../../shared/zephyr/setup.sh"
	if [ ! -f "$beacon_zephyr_setup" ]; then
		echo "the firmware needs a Zephyr 3.7 workspace: set ZEPHYR_BASE (west init -l . && west update," \
			"or eval \"\$(bash <shared>/zephyr/setup.sh)\"), or keep the repository beside ../shared/zephyr" >&2
		exit 1
	fi
	eval "$(bash "$beacon_zephyr_setup")"
	unset beacon_zephyr_setup
fi
export JERRYSCRIPT_DIR="${JERRYSCRIPT_DIR:-$ZEPHYR_BASE/../modules/lib/jerryscript}"
