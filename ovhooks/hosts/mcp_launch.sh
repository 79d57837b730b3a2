# ovhooks' memory server launcher: sh mcp_launch.sh /path/to/ovhooks mcp
#
# A host starts its MCP servers itself and waits for their handshake by its own rule (Copilot
# CLI 1.0.102 about 65 s for one that never answers). This starts "$@" (ovhooks mcp) with the
# host's stdin and stdout, and bounds its start: `ovhooks mcp` creates $OVHOOKS_MCP_READY once
# it serves; without that file after 4 s (40 ticks) the launcher stops it and ends, so the host
# carries on without the tools at once. It shares the hook launcher's marker
# (hosts/launch.py): a hang the hooks met in this host process ends it at once, and a hang it
# meets makes the host's next hooks skip. The numbers here are hosts/launch.py's
# (MCP_READY_S, SKIP_AFTER_HANG, MARKER_NAME); a test holds them equal.
ovh_d=$XDG_RUNTIME_DIR
[ -d "$ovh_d" ] || ovh_d=$TMPDIR
[ -d "$ovh_d" ] || ovh_d=/tmp
ovh_m="$ovh_d/ovhooks-hung-$PPID"
ovh_n=0
[ -f "$ovh_m" ] && read -r ovh_n ovh_t <"$ovh_m" 2>/dev/null
# A marker counts only with this host's start beside it: one a dead host left under the same
# pid is not this host's hang (hosts/launch.py).
case $ovh_n in [1-9]|1[0-9])
    [ "$ovh_t" = "$(echo $(ps -o lstart= -p $PPID 2>/dev/null))" ] && exit 0;;
esac
ovh_r="$ovh_d/ovhooks-mcp-ready-$$"
rm -f "$ovh_r"
# Its own session and process group where setsid(1) exists (util-linux, busybox), so that
# stopping it stops what it started too (an orphan would hold the host's pipe open, and the
# host would wait for it). The child of an asynchronous list is no group leader, so setsid
# execs in place and $! is the server's pid.
ovh_s=
command -v setsid >/dev/null 2>&1 && ovh_s=setsid
# stdin through fd 3: the stdin of an asynchronous command is /dev/null in sh.
exec 3<&0
OVHOOKS_MCP_READY="$ovh_r" $ovh_s "$@" <&3 3<&- &
ovh_p=$!
exec 3<&-
trap 'kill -TERM -"$ovh_p" 2>/dev/null || kill "$ovh_p" 2>/dev/null' HUP INT TERM
ovh_i=0
while [ ! -e "$ovh_r" ]; do
    kill -0 "$ovh_p" 2>/dev/null || break # ended (missing, crashed): the host sees it now
    ovh_i=$((ovh_i + 1))
    if [ "$ovh_i" -gt 40 ]; then
        kill -KILL -"$ovh_p" 2>/dev/null || kill -KILL "$ovh_p" 2>/dev/null
        echo "1 $(echo $(ps -o lstart= -p $PPID 2>/dev/null))" >"$ovh_m" 2>/dev/null
        exit 0
    fi
    sleep 0.1
done
rm -f "$ovh_r"
wait "$ovh_p"
exit 0
