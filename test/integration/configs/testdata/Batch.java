// Batch runs Apache's ConfigCommand once per line of a file, in one JVM
// (started with `testbed.sh apache kafka-run-class Batch.java FILE`, Java's
// single-file source mode): one JVM start instead of one per case. Each
// line holds one command line, its arguments separated by tabs. For every
// case it prints "@@case EXIT", then its stdout and stderr, each base64 on
// one line. Exit.exit is caught: the first call gives the exit code, and
// output after it (a Java tool would be gone) is dropped.
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Base64;
import java.util.List;

public class Batch {
    static final class Exited extends Error {
        Exited() { super(null, null, false, false); }
    }

    static int code;
    static boolean exited;

    public static void main(String[] a) throws Exception {
        PrintStream realOut = System.out;
        PrintStream devNull = new PrintStream(OutputStream.nullOutputStream());
        org.apache.kafka.common.utils.internals.Exit.setExitProcedure((status, msg) -> {
            if (!exited) {
                exited = true;
                code = status;
                System.setOut(devNull);
                System.setErr(devNull);
            }
            throw new Exited();
        });
        List<String> lines = Files.readAllLines(Paths.get(a[0]), StandardCharsets.UTF_8);
        for (String line : lines) {
            String[] args = line.isEmpty() ? new String[0] : line.split("\t", -1);
            ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = 0;
            exited = false;
            try {
                org.apache.kafka.tools.ConfigCommand.main(args);
            } catch (Exited e) {
                // the exit code is recorded
            } catch (Throwable t) {
                if (!exited) {
                    t.printStackTrace(System.err);
                    code = 99;
                }
            }
            System.out.flush();
            System.err.flush();
            realOut.println("@@case " + code);
            realOut.println(Base64.getEncoder().encodeToString(out.toByteArray()));
            realOut.println(Base64.getEncoder().encodeToString(err.toByteArray()));
        }
        realOut.flush();
    }
}
