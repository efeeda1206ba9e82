#!/usr/bin/env bash
# Copies what build/shiftbox needs at run time into .devrt/ (git-ignored), so
# that a machine without MPI or HDF5 — the lent GPU machine — can run it:
# the shared libraries ldd lists for shiftbox, mpirun and orted; Open MPI's
# tree (plugins, help texts) and PMIx's and hwloc's plugins, laid out as under
# /usr so that OPAL_PREFIX relocates them; the system MCA parameters as
# environment variables; and .devrt/env.sh, which sets OPAL_PREFIX, PATH and
# LD_LIBRARY_PATH.  glibc and the CUDA driver are not copied: the target's
# own are used (its glibc must be at least this machine's).
#
#   tools/bundle-runtime.sh [BINARY]          # default build/shiftbox
#   # there:  source .devrt/env.sh && mpirun -np 8 build/shiftbox ...
set -euo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"
cd "$(dirname "$0")/.."
binary=${1:-build/shiftbox}
dest=${DEVRT:-.devrt}
[[ -x $binary ]] || { echo "bundle-runtime: $binary not built (run make)" >&2; exit 2; }
arch=$(gcc -print-multiarch)
ompi_lib=/usr/lib/$arch/openmpi/lib
pmix_dir=/usr/lib/$arch/pmix2
for need in "$ompi_lib" /usr/share/openmpi "$(command -v orterun)" "$(command -v orted)"; do
    [[ -e $need ]] || { echo "bundle-runtime: $need not found (make deps)" >&2; exit 2; }
done

rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/lib/$arch/openmpi" "$dest/share" "$dest/etc"

# Open MPI and PMIx trees, where OPAL_PREFIX and PMIX_PREFIX expect them.
cp -a "$ompi_lib" "$dest/lib/$arch/openmpi/"
cp -a /usr/share/openmpi "$dest/share/"
[[ -d $pmix_dir ]] && cp -a "$pmix_dir" "$dest/lib/$arch/"
# Within one node only shared memory and TCP carry messages: leave out the
# network transports (UCX, libfabric, verbs, PSM), OpenSHMEM, the Fortran
# and Java bindings and the monitoring layers, and so the libraries they
# pull in, to stay under the GPU machine's 64 MiB carry limit.  hwloc's
# optional plugins stay behind too (its XML one alone drags in 30 MB of ICU).
(
    cd "$dest/lib/$arch/openmpi/lib"
    rm -f openmpi3/mca_*ucx* openmpi3/mca_*ofi* openmpi3/mca_*psm* openmpi3/mca_btl_openib.so \
        openmpi3/mca_btl_uct.so openmpi3/mca_spml_* openmpi3/mca_sshmem_* openmpi3/mca_memheap_* \
        openmpi3/mca_scoll_* openmpi3/mca_atomic_* openmpi3/*monitoring* openmpi3/mca_pmix_flux.so \
        libmca_common_ucx* libmca_common_ofi* libmca_common_verbs* libmca_common_monitoring* \
        liboshmem* libmpi_java* libmpi_mpifh* libmpi_usempi* libompitrace* ompi_monitoring_prof* \
        mpi.jar
    rm -rf openmpi3/*.jar
)
cp -L "$(command -v orterun)" "$dest/bin/orterun"
ln -s orterun "$dest/bin/mpirun"
ln -s orterun "$dest/bin/mpiexec"
cp -L "$(command -v orted)" "$dest/bin/orted"

# Every library the programs and plugins load, but glibc's own.
is_glibc() {
    case $(basename "$1") in
    ld-linux*.so* | libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | \
        libresolv.so* | libutil.so* | libmvec.so*) return 0 ;;
    esac
    return 1
}
objects=("$binary" "$dest/bin/orterun" "$dest/bin/orted")
while IFS= read -r -d '' so; do objects+=("$so"); done < <(find "$dest/lib" -name '*.so*' -print0)
# (ldd fails on a plugin it cannot read; what it could read is enough)
{ ldd "${objects[@]}" 2>/dev/null || true; } | awk '/=> \// { print $3 }' | sort -u |
while read -r lib; do
    is_glibc "$lib" && continue
    # Open MPI's and PMIx's own libraries are in their trees already (Debian
    # links them into /usr/lib/$arch as well, under the same names).
    name=$(basename "$lib")
    [[ -e $dest/lib/$arch/openmpi/lib/$name || -e $dest/lib/$arch/pmix2/lib/$name ]] && continue
    cp -Ln "$lib" "$dest/lib/"
done

# The system's MCA parameters (Debian's /etc/openmpi) travel as variables.
params=/etc/openmpi/openmpi-mca-params.conf
{
    echo '# source this file: the run-time closure of shiftbox (tools/bundle-runtime.sh)'
    echo 'here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)'
    echo 'export OPAL_PREFIX=$here'
    echo "export PMIX_PREFIX=\$here/lib/$arch/pmix2"
    echo "export PMIX_MCA_mca_base_component_path=\$here/lib/$arch/pmix2/lib/pmix"
    echo 'export HWLOC_PLUGINS_PATH=$here/lib/none # no optional hwloc plugins'
    echo 'export PATH=$here/bin:$PATH'
    echo "export LD_LIBRARY_PATH=\$here/lib:\$here/lib/$arch/openmpi/lib:\$here/lib/$arch/pmix2/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
    echo '[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1'
    if [[ -r $params ]]; then
        sed -n 's/^[[:space:]]*\([a-z_0-9]*\)[[:space:]]*=[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*$/export OMPI_MCA_\1="\2"/p' "$params"
    fi
} >"$dest/env.sh"

echo "bundle-runtime: $(du -sh "$dest" | cut -f1) in $dest ($(ls "$dest/lib" | wc -l) libraries);" \
    "on the target: source $dest/env.sh"
