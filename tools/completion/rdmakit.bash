# SPDX-License-Identifier: BSD-3-Clause
# Bash completion for rdmakit's tools (rk-inspect, rk-perf, rk-gen,
# rk-interop, rk-sim, rk-conform, rk-testpmd): their long and short options, read from the tool's
# own --help so the list never drifts from the program; a tool with
# commands (rk-sim incast ...) offers them first, then the command's own
# options from "TOOL COMMAND --help"; file names elsewhere. Installed once
# per tool name under bash-completion's completions directory.

# The options a --help names ("[--x]" in a usage line too); $2, if given,
# is the command. The tool's own leave out its commands' usage lines.
_rdmakit_options()
{
	local tool=${1##*/}

	"$1" ${2:+"$2"} --help 2>/dev/null |
		{ if [ -n "$2" ]; then cat; else grep -vE "^ *(usage: +)?${tool} [a-z]"; fi; } |
		grep -oE '(^|[ ,[])--?[A-Za-z0-9][A-Za-z0-9_-]*' |
		sed 's/^[ ,[]*//' | sort -u
}

# The commands a tool's usage lines name ("rk-sim incast [...]").
_rdmakit_commands()
{
	local tool=${1##*/}

	"$1" --help 2>/dev/null |
		sed -nE "s/^ *(usage: +)?${tool} ([a-z][a-z-]*)( .*)?$/\\2/p" | sort -u
}

_rdmakit_complete()
{
	local cur=${COMP_WORDS[COMP_CWORD]} cmds sub=""

	cmds=$(_rdmakit_commands "${COMP_WORDS[0]}")
	if [ "$COMP_CWORD" -gt 1 ] && grep -qxF -- "${COMP_WORDS[1]}" <<<"$cmds"; then
		sub=${COMP_WORDS[1]}
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_rdmakit_options "${COMP_WORDS[0]}" "$sub")" \
			-- "$cur")
	elif [ "$COMP_CWORD" = 1 ] && [ -n "$cmds" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$cmds" -- "$cur"; compgen -f -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

complete -F _rdmakit_complete rk-inspect rk-perf rk-gen rk-interop rk-sim rk-conform rk-testpmd
