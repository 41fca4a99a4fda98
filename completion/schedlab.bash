# bash completion for schedlab(1)                         -*- shell-script -*-
#
# Installed by `meson install` where bash-completion loads completions on
# demand; or source it from ~/.bashrc.  Needs bash 4 only (not the
# bash-completion package's helpers).
#
# Nothing here is a copy of the program's tables: the commands come from
# `schedlab --help`, each command's options and what their values are from
# `schedlab list options CMD` (printed from the very table the command
# parses its line with), and the names (policies, knobs, workloads,
# topologies) from `schedlab list ... --names` and `schedlab list knobs
# [POLICY]`, asked of the very binary being completed (the first word of
# the line) at the time of completion, so the completion follows the
# program as it changes.

# The binary the line runs: its first word, "~/" expanded.
_schedlab_bin()
{
	local bin=${COMP_WORDS[0]}
	[[ $bin == "~/"* ]] && bin=$HOME/${bin#"~/"}
	printf '%s\n' "$bin"
}

# Runs the binary quietly (a broken binary completes nothing).
_schedlab_ask()
{
	LC_ALL=C "$(_schedlab_bin)" "$@" 2>/dev/null
}

# The spellings of CMD's options, one a line, and --help: `list options
# CMD` prints a line per option, its spellings, then its value's name.
_schedlab_option_names()
{
	{
		_schedlab_ask list options "$1" | tr ' ' '\n' | grep -e '^-'
		echo --help
	} | sort -u
}

# The name of the value that CMD's option $2 takes ("FILE|-"), or nothing.
_schedlab_option_value()
{
	_schedlab_ask list options "$1" | awk -v o="$2" '
		$NF !~ /^-/ { for (i = 1; i < NF; i++) if ($i == o) print $NF }'
}

# The commands `schedlab --help` shows in its usage.
_schedlab_commands()
{
	_schedlab_ask --help | awk '/^  schedlab [a-z]/ { print $2 }' | sort -u
}

# Adds the words of $2 that start with $1 to COMPREPLY.
_schedlab_add()
{
	local w
	while IFS= read -r w; do
		[[ -n $w && $w == "$1"* ]] && COMPREPLY+=("$w")
	done <<<"$2"
}

# Adds folders (to descend into) and files starting with $1; with more
# arguments (extensions: xml json), only files ending so.
_schedlab_files()
{
	local cur=$1 f e
	shift
	compopt -o filenames 2>/dev/null
	while IFS= read -r f; do
		[[ -n $f ]] && COMPREPLY+=("$f")
	done < <(compgen -d -- "$cur")
	while IFS= read -r f; do
		[[ -z $f || -d $f ]] && continue
		if (($# > 0)); then
			for e; do
				[[ $f == *."$e" ]] && COMPREPLY+=("$f") && break
			done
		else
			COMPREPLY+=("$f")
		fi
	done < <(compgen -f -- "$cur")
}

# A -t or -w value, a name or a file, or (sweep) a list of them, T1,T2:
# completes the last piece.  $2 is the kind `list` names, the rest
# _schedlab_files' extensions.
_schedlab_list_value()
{
	local cur=$1 kind=$2 head="" item=$1 w
	shift 2
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		item=${cur##*,}
	fi
	local names=""
	while IFS= read -r w; do
		[[ -n $w ]] && names+="$head$w"$'\n'
	done <<<"$(_schedlab_ask list "$kind" --names)"
	_schedlab_add "$cur" "$names"
	local n=${#COMPREPLY[@]}
	_schedlab_files "$item" "$@"
	for ((w = n; w < ${#COMPREPLY[@]}; w++)); do
		COMPREPLY[w]=$head${COMPREPLY[w]}
	done
}

# The policies the line's -p/--policy names (P1,P2:KEY=VALUE,...).
_schedlab_line_policies()
{
	local i item
	for ((i = 1; i < ${#_schedlab_words[@]} - 1; i++)); do
		case ${_schedlab_words[i]} in
		-p | --policy)
			local IFS=,
			for item in ${_schedlab_words[i + 1]}; do
				printf '%s\n' "${item%%:*}"
			done
			return
			;;
		esac
	done
}

# KEY= for the knobs of the policies named on the lines of $2 (every
# policy's when none), after the prefix $1; each once.
_schedlab_knobs()
{
	local prefix=$1 k p knobs=""
	if [[ -n $2 ]]; then
		while IFS= read -r p; do
			[[ -n $p ]] && knobs+=$(_schedlab_ask list knobs "$p")$'\n'
		done <<<"$2"
	else
		knobs=$(_schedlab_ask list knobs)
	fi
	local -A seen=()
	while IFS= read -r k; do
		[[ -z $k || -n ${seen[$k]} ]] && continue
		seen[$k]=1
		printf '%s%s=\n' "$prefix" "$k"
	done <<<"$knobs"
}

# A -p value: P1,P2:KEY=VALUE:KEY=..., completing its last piece.
_schedlab_policy_value()
{
	local cur=$1 head=${1%,*} item
	[[ $cur == *,* ]] && head+="," || head=""
	item=${cur##*,}
	# a knob's value: nothing to offer
	[[ ${item##*:} == *=* ]] && return
	if [[ $item == *:* ]]; then
		local pol=${item%%:*}
		_schedlab_add "$cur" "$(_schedlab_knobs "$head${item%:*}:" "$pol")"
	else
		local p list=""
		while IFS= read -r p; do
			[[ -n $p ]] && list+="$head$p"$'\n'
		done <<<"$(_schedlab_ask list policies --names)"
		_schedlab_add "$cur" "$list"
	fi
	# a policy name may go on with ":" or ",", a KEY= with its value
	compopt -o nospace 2>/dev/null
}

_schedlab()
{
	COMPREPLY=()
	# Put back together what readline split at COMP_WORDBREAKS' ":" and "="
	# (steal:runnext=0 arrives as steal : runnext = 0): a word made only of
	# those joins its neighbours.
	local -a words=()
	local i w n=-1 cword=0 glue=0
	for ((i = 0; i < ${#COMP_WORDS[@]} && i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if ((n >= 0)) && [[ $w =~ ^[:=]+$ || $glue == 1 ]]; then
			words[n]+=$w
		else
			words[++n]=$w
		fi
		[[ $w =~ ^[:=]+$ ]] && glue=1 || glue=0
	done
	cword=$n
	local cur=${words[cword]} prev=""
	((cword > 0)) && prev=${words[cword - 1]}
	local _schedlab_words=("${words[@]}")

	# the command, and a workload/list subcommand
	local cmd="" sub="" j
	for ((j = 1; j < cword; j++)); do
		if [[ -z $cmd ]]; then
			[[ ${words[j]} != -* ]] && cmd=${words[j]}
		elif [[ -z $sub && ($cmd == workload || $cmd == list) ]]; then
			[[ ${words[j]} != -* ]] && sub=${words[j]}
			break
		fi
	done

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			_schedlab_add "$cur" $'--help\n--version'
		else
			_schedlab_add "$cur" "$(_schedlab_commands)"
		fi
		return 0
	fi

	case $prev in
	-p | --policy)
		_schedlab_policy_value "$cur"
		;;
	--set)
		[[ $cur == *=* ]] && return 0
		_schedlab_add "$cur" "$(_schedlab_knobs "" "$(_schedlab_line_policies)")"
		compopt -o nospace 2>/dev/null
		;;
	-t | --topology)
		_schedlab_list_value "$cur" topologies xml json
		;;
	-w | --workload)
		_schedlab_list_value "$cur" workloads
		;;
	--against)
		_schedlab_add "$cur" "$(_schedlab_ask list policies --names)"
		;;
	*)
		# any other option's value, by the name its table gives it
		local value=""
		[[ $prev == -* ]] && value=$(_schedlab_option_value "$cmd" "$prev")
		if [[ $value == *FILE* || $value == *DIR* || $value == *STORE* ]]; then
			_schedlab_files "$cur"
		elif [[ $value =~ ^[a-z0-9.]+(\|[a-z0-9.]+)+$ ]]; then
			# a choice, html|md
			_schedlab_add "$cur" "${value//|/$'\n'}"
		elif [[ -n $value ]]; then
			# a number, a time, a size, a name: nothing to offer
			:
		elif [[ $cur == -* ]]; then
			_schedlab_add "$cur" "$(_schedlab_option_names "$cmd")"
		elif [[ $cmd == list && $sub == options && $prev == options ]]; then
			_schedlab_add "$cur" "$(_schedlab_commands)"
		elif [[ $cmd == list && -z $sub ]]; then
			_schedlab_add "$cur" $'policies\ntopologies\nworkloads\nknobs\noptions'
		elif [[ $cmd == list && $sub == knobs && $prev == knobs ]]; then
			_schedlab_add "$cur" "$(_schedlab_ask list policies --names)"
		elif [[ $cmd == workload && -z $sub ]]; then
			_schedlab_add "$cur" $'expand\nimport\nshow'
		elif [[ $cmd == workload && $sub == show && $prev == show ]]; then
			_schedlab_add "$cur" "$(_schedlab_ask list workloads --names)"
		elif [[ $cmd == workload && $sub == import ]]; then
			_schedlab_files "$cur"
		elif [[ $cmd == workload && $sub == expand && $prev == expand ]]; then
			_schedlab_add "$cur" "$(_schedlab_ask list workloads --names)"
			_schedlab_files "$cur"
		elif [[ $cmd == report || $cmd == merge ]]; then
			_schedlab_files "$cur"
		fi
		;;
	esac

	# readline replaces only the text after the last ":" or "=" of the word
	# (when COMP_WORDBREAKS has them): drop that much of each candidate.
	local breaks=${COMP_WORDBREAKS//[^:=]/} strip=""
	if [[ -n $breaks && $cur == *["$breaks"]* ]]; then
		strip=${cur%"${cur##*["$breaks"]}"}
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]#"$strip"}
		done
	fi
	return 0
}

complete -F _schedlab schedlab
