#!/bin/bash
# Compare what make-mmap-testfiles.sh recorded in OUTDIR with the facts
# about real loaders that the tests rely on, and print, per object and in a
# summary, which facts were observed.  Reads OUTDIR/*.phdrs, *.pieces and
# runs/; writes to stdout.  Fails only when the files cannot be read.
set -eu

usage="usage: $0 OUTDIR"
if [ $# -ne 1 ]; then
  echo "$usage" >&2
  exit 2
fi
cd "$1"

page=$(getconf PAGESIZE)
mask=$((~(page - 1)))

# Summary: fact -> names of the objects that showed it.
declare -A seen
note ()
{
  local n=${2#testfile-mmap-}
  case " ${seen[$1]:-} " in
    *" $n "*) ;;
    *) seen[$1]="${seen[$1]:-}${seen[$1]:+ }$n" ;;
  esac
}

hex () { printf '%08x' "$1"; }

for phdrs in testfile-mmap-*.phdrs; do
  name=${phdrs%.phdrs}
  size=$(stat -c %s "$name")
  type=$(awk '/^Elf file type is/ { print $5 }' "$phdrs")

  # PT_LOADs: offset vaddr filesz memsz prot (as a maps perms string).
  off=() vaddr=() filesz=() memsz=() prot=()
  while read -r o v f m fl; do
    off+=($((o))) vaddr+=($((v))) filesz+=($((f))) memsz+=($((m)))
    p=$([[ $fl == *R* ]] && echo r || echo -)
    p+=$([[ $fl == *W* ]] && echo w || echo -)
    p+=$([[ $fl == *E* ]] && echo x || echo -)
    prot+=("${p}p")
  done < <(awk '$1 == "LOAD" { f = ""; for (i = 7; i < NF; i++) f = f $i;
			       print $2, $3, $5, $6, f }' "$phdrs")
  nload=${#off[@]}
  relro=$(awk '$1 == "GNU_RELRO" { print $3, $6 }' "$phdrs")

  # The pieces: perf -d events, perf events without -d, maps lines.
  bias=$((16#$(awk '$1 == "bias" { print $2 }' "$name.pieces")))
  run=$(awk '/^# recorded in one run of / { print $NF }' "$name.pieces")
  ps=() pe=() pp=() po=()
  while read -r range perms pgoff; do
    ps+=($((16#${range%-*}))) pe+=($((16#${range#*-})))
    pp+=("$perms") po+=($((16#$pgoff)))
  done < <(awk '$1 == "perf" { print $2, $3, $4 }' "$name.pieces")
  nperf=${#ps[@]}

  echo "$name ($type, $nload PT_LOAD${relro:+, GNU_RELRO}, $size bytes)"

  # glibc and the kernel first map the whole span with the first
  # segment's prot.
  span_s=$((bias + (vaddr[0] & mask)))
  last=$((nload - 1))
  span_e=$((bias + ((vaddr[last] + memsz[last] + page - 1) & mask)))
  span="$(hex $span_s)-$(hex $span_e) ${prot[0]} $(hex $((off[0] & mask)))"
  first="$(hex "${ps[0]}")-$(hex "${pe[0]}") ${pp[0]} $(hex "${po[0]}")"
  if [ "$first" = "$span" ]; then
    echo "  first event is the whole span: $first"
    note whole-span "$name"
  else
    echo "  first event is NOT the whole span $span: $first"
  fi

  # Each later segment is mapped over it, as one event whose range may
  # be longer than the segment when the kernel merged it with a neighbour.
  for ((i = 1; i < nload; i++)); do
    s=$((bias + (vaddr[i] & mask)))
    e=$((bias + ((vaddr[i] + filesz[i] + page - 1) & mask)))
    o=$((off[i] & mask))
    found=
    for ((j = 1; j < nperf; j++)); do
      if [ "${ps[j]}" -eq $s ] && [ "${po[j]}" -eq $o ] \
	   && [ "${pp[j]}" = "${prot[i]}" ]; then
	found=$j
	break
      fi
    done
    what="PT_LOAD $i (${prot[i]} @$(hex $o))"
    if [ -z "$found" ]; then
      echo "  $what: NO event"
      continue
    fi
    note later-segments "$name"
    merged=
    if [ "${pe[found]}" -ne $e ]; then
      merged=", $(hex "${pe[found]}") instead of $(hex $e): merged"
      note merged "$name"
    fi
    echo "  $what: event $((found + 1))$merged"
  done

  # RELRO: rw-p first, then r--p after mprotect; maps only show r--p.
  if [ -n "$relro" ]; then
    read -r rv rm <<< "$relro"
    rs=$((bias + (rv & mask)))
    re=$((bias + ((rv + rm) & mask)))
    rw="" ro=""
    for ((j = 0; j < nperf; j++)); do
      if [ -z "$rw" ] && [ "${pp[j]}" = rw-p ] && [ "${ps[j]}" -le $rs ] \
	   && [ "${pe[j]}" -gt $rs ]; then
	rw=$j
      elif [ -n "$rw" ] && [ "${pp[j]}" = r--p ] && [ "${ps[j]}" -eq $rs ] \
	     && [ "${pe[j]}" -eq $re ]; then
	ro=$j
      fi
    done
    if [ -n "$ro" ]; then
      echo "  RELRO $(hex $rs)-$(hex $re): rw-p event $((rw + 1))," \
	   "then r--p event $((ro + 1))"
      note relro "$name"
    else
      echo "  RELRO $(hex $rs)-$(hex $re): NO rw-p then r--p events"
    fi
    if grep -q "^maps $(hex $rs)-[0-9a-f]* rw-p" "$name.pieces"; then
      echo "  RELRO: maps still show rw-p at its start"
    fi
    # The segment after the one holding RELRO.
    for ((i = 0; i < nload; i++)); do
      if [ $((vaddr[i])) -gt $((rv)) ]; then
	ns=$((bias + (vaddr[i] & mask)))
	if [ $re -gt $ns ]; then
	  echo "  RELRO r--p covers the first page of PT_LOAD $i"
	  note relro-next "$name"
	else
	  echo "  RELRO r--p ends at or below PT_LOAD $i's first page"
	fi
	break
      fi
    done
    for ((i = 0; i < nload; i++)); do
      if [ $((rv)) -ge "${vaddr[i]}" ] \
	   && [ $((rv)) -lt $((vaddr[i] + memsz[i])) ] \
	   && [ $((rv + rm)) -gt $((vaddr[i] + memsz[i])) ]; then
	echo "  PT_GNU_RELRO ends $(hex $((rv + rm - vaddr[i] - memsz[i])))" \
	     "past the end of PT_LOAD $i"
	note relro-rounded "$name"
      fi
    done
  fi

  # Gaps: file-backed ---p pieces, and where their pgoff ends.
  while read -r kind range perms pgoff; do
    s=$((16#${range%-*})) e=$((16#${range#*-})) o=$((16#$pgoff))
    eof=
    if [ $((o + e - s)) -gt "$size" ]; then
      eof=" (pgoff runs to $(hex $((o + e - s))), past EOF $(hex "$size"))"
      note gap-past-eof "$name"
    fi
    echo "  gap: $kind $range $perms $pgoff$eof"
    note gap "$name"
  done < <(awk '$3 == "---p" && ($1 == "perf" || $1 == "maps")' "$name.pieces")
  if ! grep -q '^perf .* ---p ' "$name.pieces"; then
    echo "  no ---p events"
    note no-gap "$name"
  fi

  # Several segments in file page 0; executable segments sharing a page.
  n=0
  for ((i = 0; i < nload; i++)); do
    [ $((off[i] & mask)) -eq 0 ] && n=$((n + 1))
  done
  if [ $n -gt 1 ]; then
    echo "  $n PT_LOADs start in file page 0;" \
	 "$(grep -c '^perf [^ ]* [^ ]* 00000000$' "$name.pieces") perf events" \
	 "have pgoff 0"
    note page0 "$name"
  fi
  for ((i = 0; i < nload; i++)); do
    for ((j = i + 1; j < nload; j++)); do
      [[ ${prot[i]} == *x* && ${prot[j]} == *x* ]] || continue
      if [ $(((off[i] + filesz[i] - 1) & mask)) -ge $((off[j] & mask)) ]; then
	echo "  executable PT_LOADs $i and $j share file page" \
	     "$(hex $((off[j] & mask)))"
	note exec-share "$name"
      fi
    done
  done

  # Without -d perf records only the executable mappings.
  echo "  perf without -d:" \
       "$(awk '$1 == "perf-exec" { printf " %s %s @%s", $2, $3, $4 }' \
	    "$name.pieces")"
  if [ "$(grep -c '^perf-exec ' "$name.pieces")" -eq 1 ] \
       && grep -q "^perf-exec $(hex $span_s)-$(hex $span_e) r-xp" \
	    "$name.pieces"; then
    echo "  the whole span r-xp is its only executable event"
    note only-exec-span "$name"
  fi

  # Alignment above the page size: an anonymous ---p reservation just
  # before the first event, gone from the maps afterwards.
  if [ -n "$run" ] && [ -f "runs/$run.perf-d" ]; then
    prev=$(awk -v p="$PWD/$name" '$4 == p { print prev; exit } { prev = $0 }' \
	     "runs/$run.perf-d")
    if [[ $prev == *" ---p "*//anon ]]; then
      read -r range _ <<< "$prev"
      echo "  anonymous ---p reservation $range just before its first event"
      left=$(awk -v s="$(hex $span_s)" -v e="$(hex $span_e)" \
		 '$1 == "maps" && $3 == "---p" && NF == 6 \
		  && (substr($2, index($2, "-") + 1) == s || $2 ~ "^" e "-")' \
		 "runs/$run.out")
      if [ -z "$left" ]; then
	echo "  no anonymous ---p next to it in the maps: trimmed"
	note anon-trimmed "$name"
      else
	echo "  anonymous ---p next to it in the maps: ${left#maps }"
      fi
    fi
  fi
  echo
done

# The dynamic loader itself is mapped by the kernel.
for run in runs/*.perf-d; do break; done
echo "ld.so (mapped by the kernel) in ${run}:"
grep '/ld-linux' "$run" | sed 's/^/  /'
echo

cat <<EOF
Summary (objects named without testfile-mmap-):
first event is the whole span with the first PT_LOAD's prot:
  ${seen[whole-span]:-none}
later PT_LOADs each mapped over it by their own event:
  ${seen[later-segments]:-none}
an event longer than its segment (merged with a neighbour):
  ${seen[merged]:-none}
RELRO as rw-p, then r--p after mprotect:
  ${seen[relro]:-none}
PT_GNU_RELRO extends past the end of its PT_LOAD (rounded up):
  ${seen[relro-rounded]:-none}
RELRO r--p piece covers the first page of the next PT_LOAD:
  ${seen[relro-next]:-none}
file-backed ---p gap pieces:
  ${seen[gap]:-none}
gap pieces whose pgoff runs past EOF:
  ${seen[gap-past-eof]:-none}
no ---p events at all:
  ${seen[no-gap]:-none}
anonymous ---p alignment reservation, trimmed:
  ${seen[anon-trimmed]:-none}
several PT_LOADs in file page 0:
  ${seen[page0]:-none}
two executable PT_LOADs sharing a file page:
  ${seen[exec-share]:-none}
without -d, the whole span r-xp is the only executable event:
  ${seen[only-exec-span]:-none}
EOF
