/*
 * Anchor for benchmarks/bench_anchors.py: Paimon 0.9 Java's scan planning plus the file-index
 * evaluation its reader does, per predicate, timed after JIT warm-up.
 *
 * Build and run (bench_anchors.py does both; JAR is paimon-python-java-bridge-0.9.0.jar from the
 * pypaimon==0.2.0 sdist, which holds Paimon 0.9.0 core with its dependencies shaded):
 *
 *   javac -cp JAR -d CLASSES benchmarks/anchors/PlanBench.java
 *   java -cp JAR:CLASSES PlanBench --table DIR [--no-cache] [--probe] [--warmup-ms 3000] [--reps 5] \
 *        --pred 'name|eq:dt:2025-01-03;eq:status:pending' --pred 'range|between:score:300:400' ...
 *
 * A predicate is a conjunction of terms separated by ';', each term op:column:value[:value2] with op
 * one of eq, ne, lt, le, gt, ge, between; values are parsed by the column's type.
 *
 * What one measurement is, for one predicate on one table object opened once:
 *   plan   table.newReadBuilder().withFilter(p).newScan().plan(): manifests, partition, bucket and
 *          value-stats filtering, and the embedded file indexes (AppendOnlyFileStoreScan.testFileIndex)
 *   index  for every planned data file, FileIndexSkipper.skip(...) with the data filters the reader
 *          uses (splitAnd, partition conjuncts removed): what RawFileSplitRead does before opening a
 *          file, reading the external .index file (Paimon 0.9 evaluates only external indexes there)
 *
 * The table is opened with FileStoreTableFactory and given the manifest cache a CachingCatalog gives
 * its tables by default (SegmentsCache with cache.manifest.small-file-memory and
 * cache.manifest.small-file-threshold at their defaults), so a repeated plan is "warm" as in an
 * engine that keeps its catalog (no Hadoop classes are needed this way); --no-cache leaves it out.
 * --probe plans and evaluates every predicate once and reports each one's exception, if any.
 *
 * Output: one JSON line on stdout.
 */

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataFilePathFactory;
import org.apache.paimon.io.FileIndexSkipper;
import org.apache.paimon.options.CatalogOptions;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.FileStorePathFactory;
import org.apache.paimon.utils.SegmentsCache;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;

public final class PlanBench {

    private static final class Pred {
        final String name;
        final String spec;
        final Predicate predicate;
        final List<Predicate> dataFilters;

        Pred(String name, String spec, Predicate predicate, List<Predicate> dataFilters) {
            this.name = name;
            this.spec = spec;
            this.predicate = predicate;
            this.dataFilters = dataFilters;
        }
    }

    private static final class Run {
        long planNs;
        long indexNs;
        int splits;
        int planned;
        int kept;
        int indexFiles;
    }

    private PlanBench() {}

    public static void main(String[] args) throws Exception {
        String tablePath = null;
        boolean cache = true;
        boolean probe = false;
        long warmupMs = 3000;
        int reps = 5;
        List<String> specs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--table": tablePath = args[++i]; break;
                case "--no-cache": cache = false; break;
                case "--probe": probe = true; break;
                case "--warmup-ms": warmupMs = Long.parseLong(args[++i]); break;
                case "--reps": reps = Integer.parseInt(args[++i]); break;
                case "--pred": specs.add(args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (tablePath == null || specs.isEmpty()) {
            throw new IllegalArgumentException("--table and at least one --pred are required");
        }
        long t0 = System.nanoTime();
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), new Path(tablePath));
        if (cache) {
            table.setManifestCache(SegmentsCache.create(
                    CatalogOptions.CACHE_MANIFEST_SMALL_FILE_MEMORY.defaultValue(),
                    CatalogOptions.CACHE_MANIFEST_SMALL_FILE_THRESHOLD.defaultValue().getBytes()));
        }
        long openNs = System.nanoTime() - t0;
        List<Pred> preds = new ArrayList<>();
        for (String s : specs) {
            preds.add(parse(table, s));
        }
        StringBuilder out = new StringBuilder("{");
        field(out, "java", System.getProperty("java.version")).append(',');
        field(out, "table", tablePath).append(',');
        out.append("\"manifest_cache\":").append(cache).append(',');
        out.append("\"open_ms\":").append(ms(openNs)).append(',');
        if (probe) {
            out.append("\"probe\":[");
            for (int i = 0; i < preds.size(); i++) {
                Pred p = preds.get(i);
                out.append(i == 0 ? "{" : ",{");
                field(out, "name", p.name).append(',');
                try {
                    Run r = run(table, p);
                    out.append("\"ok\":true,\"splits\":").append(r.splits).append(",\"planned\":").append(r.planned)
                            .append(",\"after_index\":").append(r.kept).append('}');
                } catch (Throwable e) {
                    Throwable root = e;
                    while (root.getCause() != null && root.getCause() != root) {
                        root = root.getCause();
                    }
                    out.append("\"ok\":false,");
                    field(out, "error", e.getClass().getName() + ": " + e.getMessage()).append(',');
                    field(out, "root_cause", root.getClass().getName() + ": " + root.getMessage());
                    StackTraceElement[] st = root.getStackTrace();
                    out.append(",\"at\":[");
                    for (int k = 0; k < Math.min(4, st.length); k++) {
                        out.append(k == 0 ? "" : ",").append('"').append(escape(st[k].toString())).append('"');
                    }
                    out.append("]}");
                }
            }
            out.append("]}");
            System.out.println(out);
            return;
        }

        // the very first plan of the JVM (class loading, interpreter): for reference only
        long f0 = System.nanoTime();
        run(table, preds.get(0));
        long firstNs = System.nanoTime() - f0;

        // JIT warm-up: every predicate in turn until warmupMs have passed (at least 3 times each)
        long deadline = System.nanoTime() + warmupMs * 1_000_000L;
        int warmups = 0;
        while (warmups < 3 * preds.size() || System.nanoTime() < deadline) {
            run(table, preds.get(warmups % preds.size()));
            warmups++;
        }

        // measured: the predicates interleaved, the starting one rotated every repetition
        long[][] plan = new long[preds.size()][reps];
        long[][] index = new long[preds.size()][reps];
        Run[] last = new Run[preds.size()];
        for (int r = 0; r < reps; r++) {
            for (int j = 0; j < preds.size(); j++) {
                int i = (j + r) % preds.size();
                Run run = run(table, preds.get(i));
                plan[i][r] = run.planNs;
                index[i][r] = run.indexNs;
                last[i] = run;
            }
        }
        out.append("\"first_plan_ms\":").append(ms(firstNs)).append(',');
        out.append("\"warmup_runs\":").append(warmups).append(',');
        out.append("\"preds\":[");
        for (int i = 0; i < preds.size(); i++) {
            Pred p = preds.get(i);
            Run r = last[i];
            long[] total = new long[reps];
            for (int k = 0; k < reps; k++) {
                total[k] = plan[i][k] + index[i][k];
            }
            out.append(i == 0 ? "{" : ",{");
            field(out, "name", p.name).append(',');
            field(out, "predicate", String.valueOf(p.predicate)).append(',');
            out.append("\"plan_ms\":").append(list(plan[i])).append(',');
            out.append("\"index_ms\":").append(list(index[i])).append(',');
            out.append("\"total_ms\":").append(list(total)).append(',');
            out.append("\"splits\":").append(r.splits).append(',');
            out.append("\"planned\":").append(r.planned).append(',');
            out.append("\"index_files\":").append(r.indexFiles).append(',');
            out.append("\"after_index\":").append(r.kept).append('}');
        }
        out.append("]}");
        System.out.println(out);
    }

    /** One plan plus the reader's external-index check of every planned file. */
    private static Run run(FileStoreTable table, Pred p) throws Exception {
        Run r = new Run();
        long a = System.nanoTime();
        ReadBuilder rb = table.newReadBuilder();
        if (p.predicate != null) {
            rb = rb.withFilter(p.predicate);
        }
        List<Split> splits = rb.newScan().plan().splits();
        long b = System.nanoTime();
        FileStorePathFactory pf = table.store().pathFactory();
        for (Split s : splits) {
            DataSplit ds = (DataSplit) s;
            DataFilePathFactory dfp = pf.createDataFilePathFactory(ds.partition(), ds.bucket());
            for (DataFileMeta f : ds.dataFiles()) {
                r.planned++;
                for (String extra : f.extraFiles()) {
                    if (extra.endsWith(".index")) {
                        r.indexFiles++;
                    }
                }
                if (!FileIndexSkipper.skip(table.fileIO(), table.schema(), p.dataFilters, dfp, f)) {
                    r.kept++;
                }
            }
        }
        long c = System.nanoTime();
        r.splits = splits.size();
        r.planNs = b - a;
        r.indexNs = c - b;
        return r;
    }

    private static Pred parse(FileStoreTable table, String spec) {
        int bar = spec.indexOf('|');
        if (bar < 0) {
            throw new IllegalArgumentException("predicate without a name: " + spec);
        }
        String name = spec.substring(0, bar);
        RowType rowType = table.rowType();
        PredicateBuilder pb = new PredicateBuilder(rowType);
        List<Predicate> terms = new ArrayList<>();
        for (String term : spec.substring(bar + 1).split(";")) {
            if (term.isEmpty()) {
                continue;
            }
            String[] t = term.split(":", -1);
            int idx = rowType.getFieldIndex(t[1]);
            if (idx < 0) {
                throw new IllegalArgumentException("no column " + t[1] + " in " + rowType);
            }
            DataType type = rowType.getTypeAt(idx);
            Object v = value(type, t[2]);
            switch (t[0]) {
                case "eq": terms.add(pb.equal(idx, v)); break;
                case "ne": terms.add(pb.notEqual(idx, v)); break;
                case "lt": terms.add(pb.lessThan(idx, v)); break;
                case "le": terms.add(pb.lessOrEqual(idx, v)); break;
                case "gt": terms.add(pb.greaterThan(idx, v)); break;
                case "ge": terms.add(pb.greaterOrEqual(idx, v)); break;
                case "between": terms.add(pb.between(idx, v, value(type, t[3]))); break;
                default: throw new IllegalArgumentException("unknown op " + t[0]);
            }
        }
        Predicate predicate = terms.isEmpty() ? null : PredicateBuilder.and(terms);
        List<Predicate> data = predicate == null ? new ArrayList<>() : PredicateBuilder.excludePredicateWithFields(
                PredicateBuilder.splitAnd(predicate), new HashSet<>(table.partitionKeys()));
        return new Pred(name, spec, predicate, data);
    }

    private static Object value(DataType type, String text) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR: return BinaryString.fromString(text);
            case BIGINT: return Long.parseLong(text);
            case INTEGER: return Integer.parseInt(text);
            case SMALLINT: return Short.parseShort(text);
            case TINYINT: return Byte.parseByte(text);
            case DOUBLE: return Double.parseDouble(text);
            case FLOAT: return Float.parseFloat(text);
            case BOOLEAN: return Boolean.parseBoolean(text);
            default: throw new IllegalArgumentException("unsupported type " + type);
        }
    }

    private static String ms(long ns) {
        return String.format(Locale.ROOT, "%.4f", ns / 1e6);
    }

    private static String list(long[] ns) {
        String[] parts = new String[ns.length];
        for (int i = 0; i < ns.length; i++) {
            parts[i] = ms(ns[i]);
        }
        return "[" + String.join(",", Arrays.asList(parts)) + "]";
    }

    private static StringBuilder field(StringBuilder out, String key, String value) {
        return out.append('"').append(key).append("\":\"").append(escape(value)).append('"');
    }

    private static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : (s == null ? "null" : s).toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
