# port.sh - TCP ports for the servers the tests start.  POSIX sh; sourced by
# pg.sh and mariadb.sh (pgbouncer.sh uses pg.sh's).
#
# A server that cannot be told "port 0" (PostgreSQL, MariaDB, PgBouncer) gets
# a random port below the kernel's ephemeral range
# (/proc/sys/net/ipv4/ip_local_port_range, 32768 on Debian): every socket
# that binds port 0 (a client's connection, a test's listener that lets the
# kernel choose, tpccbench --metrics-listen 127.0.0.1:0) takes its port from
# that range, so none can hold the port a server is about to bind.  Two
# servers of tests running at once may still pick the same one: their start
# fails with "could not bind"/"in use" and is tried again on the next port.
#
#     test_port_random   prints a port in 20000 .. (the range's start - 1)

test_port_random() {
    _lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null) || _lo=
    case $_lo in '' | *[!0-9]*) _lo=32768 ;; esac
    [ "$_lo" -gt 21000 ] || _lo=32768
    _r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    echo $((_r % (_lo - 20000) + 20000))
}

# test_port_next PORT: the port after PORT, wrapping inside test_port_random's range.
test_port_next() {
    _lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null) || _lo=
    case $_lo in '' | *[!0-9]*) _lo=32768 ;; esac
    [ "$_lo" -gt 21000 ] || _lo=32768
    echo $(($1 + 1 >= _lo ? 20000 : $1 + 1))
}
