# ShiftBox: one entry point.
#
#   make deps     install the Debian packages (DESIGN.md) that are missing
#   make          build build/shiftbox                     (the default: all)
#   make run      deps + build + the default workload on 2 ranks
#   make check    deps + build (and the SMPI build) + every test; ends with
#                 "N passed, N failed"
#   make bench    deps + build + the benchmarks under tools/ (ratios from one run)
#   make clean    remove build/
#
# Options: CUDA=auto|0|1 (build the CUDA parts when nvcc is found / never /
# always), ASAN=1 (AddressSanitizer + UBSan, in build/asan), SIMGRID=1 (the
# SimGrid SMPI binary build/smpi/shiftbox: exchange, pingpong and model on
# simulated platforms; tools/smpi-run.sh runs it), CUDA_EMU=1 (build/emu/shiftbox:
# the CUDA sources compiled as host code against the CUDA runtime emulation in
# tests/cuda_emu/, so stencil.backend=cuda runs without a GPU), NP=2 (ranks of
# make run), V=1 (print whole compiler commands).
#
#   make gpu-check  on a machine with a GPU: tools/gpu-check.sh results/gpu-check

SHELL := /bin/bash
.DEFAULT_GOAL := all
.SUFFIXES:

ASAN ?= 0
CUDA ?= auto
CUDA_EMU ?= 0
SIMGRID ?= 0
NP   ?= 2
V    ?= 0
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-5s %s\n'
endif

ifeq ($(SIMGRID),1)
BUILD ?= build/smpi
else ifeq ($(CUDA_EMU),1)
BUILD ?= build/emu
else ifeq ($(ASAN),1)
BUILD ?= build/asan
else
BUILD ?= build
endif
BIN := $(BUILD)/shiftbox

# Open MPI refuses to start as root unless told twice.
ifeq ($(shell id -u),0)
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
endif

DEB_PACKAGES := build-essential pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev \
                libinih-dev libcjson-dev libcmocka-dev python3-matplotlib python3-numpy \
                python3-h5py libsimgrid-dev python3-mdanalysis python3-jsonschema \
                chromium lammps time

# ---- toolchain --------------------------------------------------------------
# Flags are evaluated when a recipe runs (=, not :=), after `make deps` has
# installed pkg-config's files.
CC      := mpicc
PKGS    := hdf5-openmpi inih libcjson
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror
OPENMP  := -fopenmp
OPT     := -O3 -g
# -ffp-contract=off: products and sums stay apart (no FMA) in every build, so
# the stencil's vector clones, the CUDA backend (--fmad=false) and the
# reference round alike, bit for bit, whatever compiler mpicc wraps.
FPFLAGS := -ffp-contract=off
CFLAGS  = $(CSTD) $(WARN) $(OPT) $(FPFLAGS) $(OPENMP) $(SAN) $(shell pkg-config --cflags $(PKGS))
LDLIBS  = $(shell pkg-config --libs $(PKGS)) -lm
ifeq ($(ASAN),1)
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
# SimGrid's SMPI: the same sources through smpicc, without what SMPI cannot
# link (HDF5, CUDA) and the commands that need it; SB_SMPI guards those few
# lines (src/main.c, src/report.c).  Each simulated rank gets its own copy of
# the globals through smpirun's privatization (its default).
ifeq ($(SIMGRID),1)
CC      := smpicc
PKGS    := inih libcjson
CSTD    += -DSB_SMPI
OPENMP  :=
override CUDA := 0
endif

ifeq ($(CUDA_EMU),1)
override CUDA := 0
endif

NVCC_FOUND := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
ifeq ($(CUDA),auto)
NVCC := $(NVCC_FOUND)
else ifeq ($(CUDA),1)
NVCC := $(or $(NVCC_FOUND),$(error CUDA=1 but nvcc was not found; install the CUDA toolkit or use CUDA=0))
else ifeq ($(CUDA),0)
NVCC :=
else
$(error CUDA=$(CUDA): accepted values are auto, 0 and 1)
endif
CUDA_HOME := $(patsubst %/bin/nvcc,%,$(NVCC))
# Hopper (sm_90) and Ampere (sm_80) code, plus PTX that newer GPUs can compile.
NVCC_ARCH := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]
NVFLAGS  = -std=c++17 -O2 --fmad=false $(NVCC_ARCH) -Xcompiler -Wall,-Wextra,-Werror
# The CUDA runtime, static where the toolkit ships it: the binary then starts
# on machines without CUDA and reports that no GPU is usable. Toolkits differ
# in where they keep it (lib64, lib, targets/<arch>/lib), so it is looked up.
CUDA_REAL := $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))
CUDA_LIBDIRS := $(sort $(foreach h,$(CUDA_HOME) $(CUDA_REAL),$(h)/lib64 $(h)/lib $(wildcard $(h)/targets/*/lib)))
CUDART_A  := $(firstword $(wildcard $(addsuffix /libcudart_static.a,$(CUDA_LIBDIRS))))
CUDART_SO := $(firstword $(wildcard $(addsuffix /libcudart.so,$(CUDA_LIBDIRS))))
ifneq ($(CUDART_A),)
CUDA_LIBS = $(CUDART_A) -ldl -lrt -lpthread -lstdc++
else ifneq ($(CUDART_SO),)
CUDA_LIBS = -L$(dir $(CUDART_SO)) -Wl,-rpath,$(dir $(CUDART_SO)) -lcudart -lstdc++
else ifeq ($(CUDA),1)
$(error CUDA=1 but no CUDA runtime (libcudart_static.a or libcudart.so) was found under $(CUDA_LIBDIRS))
else ifneq ($(NVCC),)
# nvcc without a runtime to link: the CUDA sources are still compiled (so a
# compile error fails the build) but the binary is CPU-only.
$(info note: nvcc found but no CUDA runtime library under $(CUDA_HOME); building the CPU-only binary, CUDA sources compiled as a check)
CUDA_COMPILE_ONLY := 1
endif

# ---- sources ------------------------------------------------------------------
SRC := $(wildcard src/*.c) $(wildcard src/sweep/*.c) $(wildcard src/pingpong/*.c) $(wildcard src/md/*.c) $(wildcard src/checkpoint/*.c) $(wildcard src/stencil/*.c) $(wildcard src/smp/*.c) \
       $(wildcard comm/*.c) \
       $(filter-out %_none.c,$(wildcard gpu/*.c))
# CUDA sources; each gpu/NAME_cuda.cu has a gpu/NAME_none.c twin linked instead
# when the binary is built without CUDA.
CU_SRC := $(wildcard gpu/*.cu)
CU_OBJ := $(CU_SRC:%.cu=$(BUILD)/obj/%.o)
ifneq ($(NVCC),)
CU_CHECK := $(CU_OBJ)
endif
ifneq ($(NVCC),)
CUDA_LINKED := $(if $(CUDA_COMPILE_ONLY),,1)
endif
ifeq ($(CUDA_EMU),1)
# The same gpu/*.cu through g++ (gpu/cuda_compat.h maps the launches), with
# the emulated runtime; contractions off as nvcc's --fmad=false.
CXX      := g++
EMU_CXXFLAGS = -std=c++17 -O2 -g -ffp-contract=off -Wall -Wextra -Werror $(SAN) -Itests/cuda_emu
GPU_OBJ  := $(CU_OBJ) $(BUILD)/obj/tests/cuda_emu/cuda_emu.o
GPU_LIBS := -lstdc++
CU_CHECK :=
UNIT_TESTS_OFF := 1
else ifeq ($(CUDA_LINKED),1)
GPU_OBJ  := $(CU_OBJ)
GPU_LIBS  = $(CUDA_LIBS)
else
SRC      += $(CU_SRC:%_cuda.cu=%_none.c)
GPU_OBJ  :=
GPU_LIBS :=
endif
ifeq ($(SIMGRID),1)
# exchange, pingpong and model: md (HDF5 checkpoints), stencil (CUDA, helper
# threads) and smpcost (shared-memory windows of one real node) stay out.
SRC := $(filter-out src/cmd_md.c src/cmd_stencil.c src/cmd_smpcost.c src/md/% src/checkpoint/% \
         src/stencil/% src/smp/apps_run.c src/smp/plan.c src/smp/suites.c src/smp/families.c \
         src/smp/output.c gpu/backend_%,$(SRC))
endif
OBJ      := $(SRC:%.c=$(BUILD)/obj/%.o) $(GPU_OBJ)
LIB_OBJ  := $(filter-out $(BUILD)/obj/src/main.o,$(OBJ))

UNIT_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c))
ifneq ($(SIMGRID)$(UNIT_TESTS_OFF),0)
UNIT_TESTS :=
endif

# ---- targets --------------------------------------------------------------------
.PHONY: all deps run check bench clean tests format gpu-check

all: $(BIN) $(CU_CHECK)

$(BIN): $(OBJ)
	$(say) LINK $@
	$(Q)$(CC) $(SAN) $(OPENMP) -o $@ $^ $(LDLIBS) $(GPU_LIBS)

# The git revision, for --version: main.o is rebuilt when it changes.
GIT_REV := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/git-revision: FORCE
	@mkdir -p $(@D)
	@echo '$(GIT_REV)' | cmp -s - $@ || echo '$(GIT_REV)' >$@
$(BUILD)/obj/src/main.o: $(BUILD)/git-revision
$(BUILD)/obj/src/main.o: CFLAGS += -DSB_GIT_REVISION='"$(GIT_REV)"'
.PHONY: FORCE

# A plain `make` on a machine without the packages says what to run (make
# run and make check install them first).
toolchain:
	@command -v $(CC) >/dev/null || { echo "make: $(CC) not found: run 'make deps' first (it installs the Debian packages; make run and make check do so themselves)" >&2; exit 2; }
	@pkg-config --exists $(PKGS) || { echo "make: pkg-config finds no $(PKGS): run 'make deps' first" >&2; exit 2; }
.PHONY: toolchain

$(BUILD)/obj/%.o: %.c | toolchain
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

ifeq ($(CUDA_EMU),1)
$(BUILD)/obj/gpu/%.o: gpu/%.cu $(wildcard gpu/*.h) tests/cuda_emu/cuda_runtime.h
	@mkdir -p $(@D)
	$(say) CXX $<
	$(Q)$(CXX) $(EMU_CXXFLAGS) -x c++ -c $< -o $@

$(BUILD)/obj/tests/cuda_emu/%.o: tests/cuda_emu/%.cpp tests/cuda_emu/cuda_runtime.h
	@mkdir -p $(@D)
	$(say) CXX $<
	$(Q)$(CXX) $(EMU_CXXFLAGS) -c $< -o $@
else
$(BUILD)/obj/gpu/%.o: gpu/%.cu $(wildcard gpu/*.h)
	@mkdir -p $(@D)
	$(say) NVCC $<
	$(Q)$(NVCC) $(NVFLAGS) -c $< -o $@
endif

$(BUILD)/tests/%: tests/%.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(say) TEST $@
	$(Q)$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(LIB_OBJ) $(LDLIBS) $(GPU_LIBS) -lcmocka

tests: all $(UNIT_TESTS)

deps:
	@tools/install-deps.sh $(DEB_PACKAGES)

run: deps
	@$(MAKE) --no-print-directory all
	mpirun --oversubscribe -np $(NP) $(BIN) md -c configs/md-lj.ini --out results/run

check: deps
	@$(MAKE) --no-print-directory tests
	@if command -v smpicc >/dev/null; then $(MAKE) --no-print-directory SIMGRID=1 ASAN=0 all; fi
	@$(MAKE) --no-print-directory CUDA_EMU=1 ASAN=0 all
	@SHIFTBOX=$(BIN) BUILD=$(BUILD) tests/run-all.sh

# On a machine with a GPU: the CUDA backend's one-call validation.
gpu-check:
	@$(MAKE) --no-print-directory CUDA=1 all
	tools/gpu-check.sh results/gpu-check $(BIN)

bench: deps
	@$(MAKE) --no-print-directory all
	@SHIFTBOX=$(BIN) tools/bench.sh

format:
	clang-format -i src/*.[ch] src/*/*.[ch] comm/*.[ch] gpu/*.[ch] gpu/*.cu tests/*.[ch]

clean:
	rm -rf build

-include $(OBJ:.o=.d) $(UNIT_TESTS:=.d)
