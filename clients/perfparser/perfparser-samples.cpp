// perfparser's samples, one line each, as `perfsym -s` prints them:
//   PID TID TIME IP DSO SYMBOL
// so that workloads/compare-with-perf.sh compares them with perf script
// as it compares perfsym's.  Runs the perfparser of its own directory on
// the perf.data file and reads its output stream with perfparser's own
// reader, the PerfParserTestClient of its autotests.
//
// A sample's frame is its IP, a location whose parent is the function
// location perfparser gave it, which has the function's name as symbol.
// perfparser names a sample in inlined code by the inlined function; the
// chain of parent locations leads out to the function that holds it, the
// function of the symbol table that perf names: that outermost function,
// its name and its entry address, is the symbol printed, with the
// offset of the IP from that entry.  TIME is in seconds with six
// decimals, truncated as perf script prints it; DSO is the file name of
// the mapping (the path of the mmap event, as perf script -F dso shows
// it), [kernel.kallsyms] or [MODULE] for the kernel, [unknown] if
// perfparser gave none; SYMBOL is NAME+0xOFFSET or [unknown].
//
// Usage: perfparser-samples [--no-demangle] -s -i PERF.DATA [-- PERFPARSER-OPTIONS]
// (perfparser demangles in any case: --no-demangle is accepted for the
// command line of compare-with-perf.sh, whose workloads are C.)

#include "perfparsertestclient.h"

#include <QCoreApplication>
#include <QDir>
#include <QProcess>

#include <cinttypes>
#include <cstdio>

static int usage()
{
    std::fprintf(stderr, "usage: perfparser-samples [--no-demangle] -s -i PERF.DATA"
                         " [-- PERFPARSER-OPTIONS]\n");
    return 2;
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    QString input;
    QStringList extra;
    bool samples = false;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("--no-demangle"))
            continue;
        else if (a == QLatin1String("-s"))
            samples = true;
        else if (a == QLatin1String("-i") && i + 1 < args.size())
            input = args[++i];
        else if (a == QLatin1String("--")) {
            extra = args.mid(i + 1);
            break;
        } else
            return usage();
    }
    if (!samples || input.isEmpty())
        return usage();

    const QString perfparser = app.applicationDirPath() + QLatin1String("/perfparser");
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process.start(perfparser, QStringList{QStringLiteral("--input"), input} + extra);
    if (!process.waitForStarted(-1) || !process.waitForFinished(-1)) {
        std::fprintf(stderr, "perfparser-samples: %s: %s\n", qPrintable(perfparser),
                     qPrintable(process.errorString()));
        return 1;
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        std::fprintf(stderr, "perfparser-samples: %s failed (exit status %d)\n",
                     qPrintable(perfparser), process.exitCode());
        return 1;
    }

    PerfParserTestClient client;
    client.extractTrace(&process);

    for (const auto &sample : client.samples()) {
        if (sample.frames.isEmpty())
            continue;
        const auto frame = client.location(sample.frames.first());
        const quint64 ip = frame.address;

        // The function perfparser named, then the functions it is inlined
        // in, out to the outermost: the last location of the chain that
        // has a symbol.  (When the IP is a function's entry, the sample's
        // location is the function's, with its symbol.)
        qint32 function = -1;
        for (qint32 id = sample.frames.first(); id != -1; id = client.location(id).parentLocationId) {
            const auto s = client.symbol(id);
            if (s.name != -1 || s.path != -1)
                function = id;
        }
        const auto symbol = client.symbol(function);
        const quint64 start = function != -1 ? client.location(function).address : 0;
        const QByteArray name = symbol.name != -1 ? client.string(symbol.name) : QByteArray();

        QByteArray dso;
        if (symbol.isKernel) {
            const QByteArray binary = symbol.binary != -1 ? client.string(symbol.binary) : QByteArray();
            dso = binary.startsWith('[') && !binary.startsWith("[kernel")
                ? binary : QByteArrayLiteral("[kernel.kallsyms]");
        } else if (symbol.path != -1 && !client.string(symbol.path).isEmpty()) {
            dso = client.string(symbol.path);
        } else {
            dso = QByteArrayLiteral("[unknown]");
        }

        std::printf("%d %d %" PRIu64 ".%06" PRIu64 " %" PRIx64 " %s ",
                    sample.pid, sample.tid, quint64(sample.time / 1000000000),
                    quint64(sample.time % 1000000000 / 1000), quint64(ip), dso.constData());
        if (name.isEmpty() || ip < start)
            std::printf("[unknown]\n");
        else
            std::printf("%s+0x%" PRIx64 "\n", name.constData(), quint64(ip - start));
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}
