# The project's include directories by folder, for scripts that compile a few files themselves
# (bench/*.sh), as src/sources.cmake gives them to the builds. Sourced; run from the repository's
# root.
#
#   beacon_include_flags [part...]   -I flags, one a line: src, src/engine, src/hal, and every
#                                    folder of src/<part> (default: runtime) holding a header

beacon_include_flags() {
	local parts=("$@") part
	[ ${#parts[@]} -gt 0 ] || parts=(runtime)
	printf '%s\n' -Isrc -Isrc/engine -Isrc/hal
	for part in "${parts[@]}"; do
		find "src/$part" -name '*.h' -printf '%h\n' | sort -u | sed 's/^/-I/'
	done
}
