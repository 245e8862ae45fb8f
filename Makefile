# The entry points of the project; the scripts in scripts/ do the work.
#   make             install what is missing, fetch elfutils, apply patches/,
#                    build the patched elfutils in build/obj,
#                    then the profiler front-end (make profiler),
#                    then run the main job (make main-job)
#   make check       all that, then every test, with a summary
#   make main-job    record the workload with perf, show perfsym's profile
#   make perfparser  fetch hotspot, patch its perfparser (clients/perfparser/)
#                    and build it, and the unpatched one, against build/obj
#   make perf        fetch linux-source-6.1, patch perf's libdw unwinder
#                    (clients/perf/) and build it, and the unpatched one,
#                    against build/obj
#   make series      export the build tree's commits to patches/
#   make reset-tree  drop the build tree's work and apply patches/ again
#   make fuzz        run both fuzzers (the API, perfsym's reader) for
#                    FUZZ_SECONDS (1800) each with ASan and UBSan;
#                    make fuzz-smoke  60 s each
#   make check-valgrind  the series' new tests under valgrind (leaks, fds)
#   make check-sanitize  the same with gcc's ASan, LSan and UBSan
#   make check-master ELFUTILS_GIT=DIR  patches-master/ on elfutils master
#   make check-old-glibc  the release and the series through make check in
#                    a Debian 11 chroot (glibc 2.31, gcc 10)
#   make bench       benchmark dwfl_report_elf_mmap against today's
#                    workarounds, rewrite bench/RESULTS.md (< 15 minutes);
#                    make bench-smoke  a short run that checks, no timings
#   make clean       remove build/obj;  make distclean  remove build/
# ELFUTILS_TARBALL=/path/to/elfutils-VERSION.tar.bz2 skips the download.

BUILDDIR = build
DLDIR = $(BUILDDIR)/dl
TREE = $(BUILDDIR)/elfutils
OBJDIR = $(BUILDDIR)/obj
ELFUTILS_VERSION := $(shell . ./elfutils.version && echo $$ELFUTILS_VERSION)
TARBALL = $(DLDIR)/elfutils-$(ELFUTILS_VERSION).tar.bz2

.PHONY: all deps fetch tree build profiler check series reset-tree clean \
	distclean main-job perfparser perf

all: build profiler main-job

deps:
	scripts/install-deps.sh

fetch: deps
	scripts/fetch-elfutils.sh $(DLDIR)

tree: fetch
	scripts/prepare-tree.sh $(TARBALL) $(TREE)

build: tree
	scripts/build-elfutils.sh $(TREE) $(OBJDIR)

# perfsym, linked with the build's libdw: build/profiler/perfsym.
profiler: build
	$(MAKE) -C profiler TREE=$(CURDIR)/$(TREE) OBJDIR=$(CURDIR)/$(OBJDIR) \
	  OUT=$(CURDIR)/$(BUILDDIR)/profiler

# perfparser (hotspot's back end) on dwfl_report_elf_mmap, and unpatched
# beside it, with the build's libdw: build/perfparser/{patched,unpatched}/bin.
# make check's tests/perfparser-*.sh build it themselves when needed.
perfparser: build
	scripts/build-perfparser.sh $(BUILDDIR) $(TREE) $(OBJDIR)

# perf 6.1 with libdw's DWARF unwinder on dwfl_report_elf_mmap, and
# unpatched beside it, with the build's libdw: build/perf/{patched,unpatched}/perf.
# make check's tests/perf-*.sh build it themselves when needed.
perf: build
	scripts/build-perf.sh $(BUILDDIR) $(TREE) $(OBJDIR)

# Build the workload, record it with perf, show perfsym's profile of it.
main-job: build profiler
	workloads/main-job.sh $(BUILDDIR)/profiler/perfsym $(BUILDDIR)/main-job

check: all
	scripts/check.sh $(TARBALL) $(TREE) $(OBJDIR)

# prepare-tree.sh then records that the tree holds what patches/ now does.
series:
	scripts/export-series.sh $(TREE) patches
	scripts/prepare-tree.sh $(TARBALL) $(TREE)

reset-tree: fetch
	@echo "reset-tree: warning: removing $(TREE); what it holds that is not in patches/ is lost.  Its commits:"
	@git -C $(TREE) log --format='  %h %s' upstream..HEAD 2>/dev/null || true
	rm -rf $(TREE)
	scripts/prepare-tree.sh $(TARBALL) $(TREE)

# The fuzzers, fuzz-report-elf-mmap (the API) and fuzz-perf-data
# (perfsym's reader), on a clang ASan+UBSan build of the tree in
# build/asan-obj, each for FUZZ_SECONDS; what breaks goes to
# build/fuzz-artifacts/ and build/fuzz-perf-data-artifacts/.
# make check runs fuzz-smoke (tests/fuzz-smoke.sh).
FUZZ_SECONDS = 1800

.PHONY: fuzz fuzz-smoke

fuzz: build
	fuzz/run-all.sh $(TREE) $(BUILDDIR) $(FUZZ_SECONDS)

fuzz-smoke: build
	fuzz/run-all.sh $(TREE) $(BUILDDIR) 60

clean:
	rm -rf $(OBJDIR)

distclean:
	@echo "distclean: warning: removing $(BUILDDIR), with the build tree $(TREE) and its work"
	rm -rf $(BUILDDIR)

# The series' new tests under valgrind (memory, leaks, open descriptors),
# in the build, and under gcc's ASan, LSan and UBSan, in a build of its
# own.  make check runs both (tests/new-tests-*.sh).
SANDIR = $(BUILDDIR)/san-obj

# patches-master/ on elfutils master, from a local clone of its git
# repository (CI has none): make check-master ELFUTILS_GIT=/path/to/elfutils
.PHONY: check-master
check-master: deps
	@test -n "$(ELFUTILS_GIT)" || { echo "make check-master: set ELFUTILS_GIT to a clone of elfutils' git repository" >&2; exit 2; }
	scripts/check-master.sh $(ELFUTILS_GIT) $(BUILDDIR)/master

# Every prefix of the series (the release alone, then patch by patch)
# through elfutils' whole make check, in build/prefixes: each patch must
# build, break no test and pass the tests it adds.  About 100 minutes;
# not in make check.  FIRST=K starts at the prefix of K patches.
.PHONY: check-prefixes
check-prefixes: fetch
	scripts/check-prefixes.sh $(TARBALL) $(BUILDDIR)/prefixes $(FIRST)

# The release and the series on glibc 2.31 and gcc 10, in a Debian 11
# chroot that debootstrap makes in build/old-glibc (as root; downloads
# from Debian's archive the first time).  13 minutes here; make check
# runs the series' own tests there (tests/old-glibc-smoke.sh).
.PHONY: check-old-glibc
check-old-glibc: build
	scripts/check-old-glibc.sh $(TARBALL) $(TREE) $(BUILDDIR)/old-glibc

.PHONY: check-valgrind check-sanitize

check-valgrind: build
	scripts/check-new-tests.sh valgrind $(TREE) $(OBJDIR)

check-sanitize: build
	scripts/check-new-tests.sh sanitize $(TREE) $(SANDIR)

# bench/run.sh: the inputs, the contenders, bench/RESULTS.md and
# bench/scaling.png; its work files are in build/bench/.
.PHONY: bench bench-smoke

bench: build profiler
	bench/run.sh full

bench-smoke: build profiler
	bench/run.sh smoke
