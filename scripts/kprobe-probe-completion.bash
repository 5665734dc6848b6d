# bash completion for kprobe-probe.
# Installed as share/bash-completion/completions/kprobe-probe (bash-completion
# loads it on the first TAB after "kprobe-probe"); without bash-completion,
# source it from ~/.bashrc. It needs nothing from bash-completion's helpers.
#
# What it completes:
#   subcommands and options   read from `kprobe-probe --help` of the program being
#                             completed, so no second list is kept here;
#   -e, --enable, --disable   event names tracefs has (available_events), GROUP:* too;
#   -d                        the dynamic events (kprobes, uprobes, ...) that exist;
#   -a, -D, -V, -L, -F and a bare probe, when -x PROGRAM is on the line:
#                             the functions `kprobe-probe -x PROGRAM -F` lists;
#   -m                        loaded modules; --compression, --file-version their values;
#   -x, -k, -o, report, -s    file (directory) names; after "--" a command, then files.

# The tracefs mount point, empty when neither place is readable (tracefs
# needs root; completion then offers no events).
_kprobe_probe_tracefs() {
  local dir
  for dir in /sys/kernel/tracing /sys/kernel/debug/tracing; do
    [[ -r $dir/available_events ]] && { printf '%s\n' "$dir"; return; }
  done
}

# GROUP:EVENT of every event tracefs knows, then GROUP:* once per group.
# (Files and pipes go through awk, not `read`: bash reads those a byte at a
# time, which on tracefs's ~2,300 events took 5 s.)
_kprobe_probe_events() {
  local tracefs
  tracefs=$(_kprobe_probe_tracefs)
  [[ -n $tracefs ]] || return
  awk -F: '{ print; groups[$1] = 1 } END { for (g in groups) print g ":*" }' "$tracefs/available_events"
}

# GROUP:EVENT of the dynamic events ("p:GROUP/EVENT ...", "r4:GROUP/EVENT ..."),
# which is what -d deletes.
_kprobe_probe_dynamic_events() {
  local tracefs
  tracefs=$(_kprobe_probe_tracefs)
  [[ -n $tracefs ]] || return
  local file
  for file in "$tracefs/dynamic_events" "$tracefs/kprobe_events" "$tracefs/uprobe_events"; do
    [[ -r $file ]] || continue
    awk '{ sub(/^[a-z][0-9]*:/, "", $1); sub("/", ":", $1); print $1 }' "$file"
    [[ $file == */dynamic_events ]] && return  # it holds the other two's events
  done
}

# "OPTIONS" or "SUBCOMMANDS" as `PROGRAM --help` names them, one a line:
# option lines start with "  -a, --add" or "      --json", usage lines with
# "kprobe-probe WORD".
_kprobe_probe_from_help() {
  local program=$1 what=$2 line
  while IFS= read -r line; do
    if [[ $what == OPTIONS ]]; then
      if [[ $line =~ ^[[:space:]]+(-[[:alnum:]]),[[:space:]]+(--[[:alnum:]-]+) ]]; then
        printf '%s\n%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
      elif [[ $line =~ ^[[:space:]]+(--[[:alnum:]-]+) ]]; then
        printf '%s\n' "${BASH_REMATCH[1]}"
      fi
    elif [[ $line =~ ^(usage:)?[[:space:]]*kprobe-probe[[:space:]]+([a-z]+)([[:space:]]|$) ]]; then
      printf '%s\n' "${BASH_REMATCH[2]}"
    fi
  done < <("$program" --help 2>/dev/null)
}

# COMPREPLY = the CANDIDATES (one a line on stdin) that start with TYPED.
# bash replaces only the part of the word after its last COMP_WORDBREAKS
# character (':' and '=' by default), so that part is cut from each reply.
_kprobe_probe_reply() {
  local typed=$1 head="" i candidate
  local breaks=${COMP_WORDBREAKS//[[:space:]]/}
  for ((i = ${#typed} - 1; i >= 0; i--)); do
    if [[ $breaks == *"${typed:i:1}"* ]]; then
      head=${typed:0:i+1}
      break
    fi
  done
  COMPREPLY=()
  while IFS= read -r candidate; do
    [[ -n $candidate ]] && COMPREPLY+=("${candidate#"$head"}")
  done < <(awk -v typed="$typed" 'index($0, typed) == 1')
}

_kprobe_probe_files() {  # $1: the word typed, $2: -f (files) or -d (directories)
  compopt -o filenames 2>/dev/null
  _kprobe_probe_reply "$1" < <(compgen "$2" -- "$1")
}

_kprobe_probe() {
  # The words are taken from the line itself, split at blanks only, so that
  # GROUP:EVENT and --opt=VALUE stay one word whatever COMP_WORDBREAKS says.
  local line=${COMP_LINE:0:COMP_POINT} cur=""
  local -a words
  read -ra words <<<"$line"
  if [[ ! $line =~ [[:space:]]$ ]]; then
    cur=${words[-1]}
    unset 'words[-1]'
  fi
  local program=${words[0]} prev=${words[-1]}
  [[ ${#words[@]} -gt 1 ]] || prev=""
  if [[ $cur == --*=* ]]; then
    prev=${cur%%=*}
    cur=${cur#*=}
  fi

  # What the line already says: the program of -x, the subcommand, "--".
  local exec="" subcommand="" after_dashes=-1 i word
  for ((i = 1; i < ${#words[@]}; i++)); do
    word=${words[i]}
    case $word in
      --) after_dashes=$i; break ;;
      -x | --exec) exec=${words[i + 1]-} ;;
      --exec=*) exec=${word#--exec=} ;;
      -x?*) exec=${word#-x} ;;
    esac
  done
  if [[ ${#words[@]} -gt 1 && ${words[1]} != -* ]] &&
     _kprobe_probe_from_help "$program" SUBCOMMANDS | grep -qxF -- "${words[1]}"; then
    subcommand=${words[1]}
  fi
  if ((after_dashes >= 0)); then  # the traced command, then its arguments
    if ((${#words[@]} - 1 == after_dashes)); then
      _kprobe_probe_reply "$cur" < <(compgen -c -- "$cur")
    else
      _kprobe_probe_files "$cur" -f
    fi
    return
  fi

  case $prev in
    -e | --event | --enable | --disable)
      _kprobe_probe_reply "$cur" < <(_kprobe_probe_events)
      return ;;
    -d | --del)
      _kprobe_probe_reply "$cur" < <(_kprobe_probe_dynamic_events)
      return ;;
    -x | --exec | -k | --vmlinux | -o | --output)
      _kprobe_probe_files "$cur" -f
      return ;;
    -s | --source)
      _kprobe_probe_files "$cur" -d
      return ;;
    -m | --module)
      _kprobe_probe_reply "$cur" < <(cut -d' ' -f1 /proc/modules 2>/dev/null)
      return ;;
    -p | --pid | --target-ns)
      # Running processes: their pids (a TAB may list them; -p itself never scans /proc).
      _kprobe_probe_reply "$cur" < <(ps -e -o pid= 2>/dev/null | tr -d ' ')
      return ;;
    --compression)
      _kprobe_probe_reply "$cur" < <(printf '%s\n' zstd zlib none)
      return ;;
    --file-version)
      _kprobe_probe_reply "$cur" < <(printf '%s\n' 6 7)
      return ;;
    -a | --add | -D | --definition | -V | --vars | -L | --line | -F | --funcs)
      # A function of the -x program (a probe spec starts with one); the
      # kernel's would need its vmlinux, which is too slow for a TAB.
      [[ -n $exec ]] && _kprobe_probe_reply "$cur" < <("$program" -x "$exec" -F "${cur}*" 2>/dev/null)
      return ;;
    --duration | --filter | --max-probes | --max-items | --maxactive | --prefix-map | -l | --list)
      return ;;
  esac

  if [[ $cur == -* ]]; then
    _kprobe_probe_reply "$cur" < <(_kprobe_probe_from_help "$program" OPTIONS)
  elif [[ $subcommand == report ]]; then
    _kprobe_probe_files "$cur" -f
  elif [[ ${#words[@]} -eq 1 ]]; then
    _kprobe_probe_reply "$cur" < <(_kprobe_probe_from_help "$program" SUBCOMMANDS)
  elif [[ -n $exec && -z $subcommand ]]; then  # a bare probe means --add
    _kprobe_probe_reply "$cur" < <("$program" -x "$exec" -F "${cur}*" 2>/dev/null)
  fi
}

complete -F _kprobe_probe kprobe-probe
