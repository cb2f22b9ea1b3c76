# SPDX-License-Identifier: BSD-3-Clause
# Bash completion for rdmakit's tools (rk-inspect, rk-perf, rk-gen,
# rk-interop, rk-sim, rk-conform, rk-testpmd): their long and short options, read from the tool's
# own --help so the list never drifts from the program; file names
# elsewhere. Installed once per tool name under bash-completion's
# completions directory.

_rdmakit_options()
{
	"$1" --help 2>/dev/null |
		grep -oE '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9_-]*' |
		sed 's/^[ ,]*//' | sort -u
}

_rdmakit_complete()
{
	local cur=${COMP_WORDS[COMP_CWORD]}

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_rdmakit_options "${COMP_WORDS[0]}")" -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

complete -F _rdmakit_complete rk-inspect rk-perf rk-gen rk-interop rk-sim rk-conform rk-testpmd
