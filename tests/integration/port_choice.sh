#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# MASTER_PORT lies in the site's range (port_range= in plugstack.conf, set by
# the fixture to 24000-24999) and is checked free on rank 0's node: with
# PMIx a taken port is skipped; without PMIx a taken port is a clear error.
source "$(dirname "$0")/lib.sh"

run_srun site_range --mpi=$XMPI --dist-mode=ddp -N2 -n2 env
[ "$RC" -eq 0 ] || { cat "$WORK/site_range.err" >&2; fail "srun exited $RC"; }
port=$(sed -n 's/^MASTER_PORT=//p' "$WORK/site_range.out" | sort -u)
[ "$port" -ge 24000 ] && [ "$port" -le 24999 ] || fail "MASTER_PORT '$port' outside 24000-24999"

cat >job.sh <<JOB
#!/bin/bash
#SBATCH -N 2 --ntasks-per-node=1 -w tcn1,tcn2
# Something else holds port 25000 on tcn1, rank 0's node.
srun --overlap -w tcn1 -N1 -n1 $PY -c '
import socket, time
s = socket.socket(); s.bind(("0.0.0.0", 25000)); s.listen()
open("$WORK/listening", "w").close(); time.sleep(60)' &
for i in \$(seq 100); do [ -e $WORK/listening ] && break; sleep 0.2; done
echo "pmix-two:"
srun --overlap --mpi=$XMPI -N2 -n2 $SHIM --mode ddp --port-range 25000-25001 -- printenv MASTER_PORT
echo "pmix-one: rc=\$(srun --overlap --mpi=$XMPI -N2 -n2 $SHIM --mode ddp --port-range 25000-25000 -- true 2>$WORK/pmix-one.err; echo \$?)"
echo "slurm-one: rc=\$(srun --overlap -N2 -n2 $SHIM --mode ddp --port-range 25000-25000 -- true 2>$WORK/slurm-one.err; echo \$?)"
kill %1
JOB
run_sbatch "$WORK/job.out" job.sh
assert_count "$WORK/job.out" '^25001$' 2
assert_contains "$WORK/job.out" "pmix-one: rc=1"
assert_contains "$WORK/pmix-one.err" "no free port among 1 tried from 25000 in 25000-25000"
assert_contains "$WORK/job.out" "slurm-one: rc=1"
assert_contains "$WORK/slurm-one.err" "port 25000 is in use on this node and without PMIx"
