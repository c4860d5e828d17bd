// ApacheBatch runs one Apache Kafka tool's main class once per line of a
// file, in one JVM: `testbed.sh apache-batch TOOL FILE` (Java's single-file
// source mode). A JVM start costs seconds on a loaded machine; a package's
// differential cases share one. Each line holds one command line, its
// arguments separated by tabs (an empty line: no arguments). For every case
// it prints "@@case EXIT", then its stdout and stderr, each base64 on one
// line. Exit.exit is caught: the first call gives the exit code, and output
// after it (the Java tool would be gone) is dropped. An exception escaping
// main prints its stack trace on the case's stderr, as the JVM would, and
// exits 1 ("Exception in thread \"main\" ..." first, as Java prints it).
// System.exit inside a case (argparse4j's parseArgsOrFail calls it on a
// parse error or --help) is caught too, by a SecurityManager whose
// checkExit throws: it becomes that case's exit code, as Exit.exit does.
// testbed.sh runs this file with -Djava.security.manager=allow; on a JVM
// that refuses a SecurityManager, System.exit ends the batch as before.
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Base64;
import java.util.List;

public class ApacheBatch {
    static final class Exited extends Error {
        Exited() { super(null, null, false, false); }
    }

    static int code;
    static boolean exited;
    static volatile boolean inCase;

    // exitOf ends the current case with status: the first call sets the
    // exit code and drops the case's later output (the tool would be gone).
    static Error exitOf(int status) {
        if (!exited) {
            exited = true;
            code = status;
            System.setOut(devNull);
            System.setErr(devNull);
        }
        return new Exited();
    }

    static PrintStream devNull = new PrintStream(OutputStream.nullOutputStream());

    @SuppressWarnings("removal")
    static void guardSystemExit() {
        // Java 17 warns once on the batch's own stderr (not a case's).
        try {
            System.setSecurityManager(new SecurityManager() {
                @Override
                public void checkPermission(java.security.Permission p) {}

                @Override
                public void checkPermission(java.security.Permission p, Object context) {}

                @Override
                public void checkExit(int status) {
                    if (inCase) {
                        throw exitOf(status);
                    }
                }
            });
        } catch (UnsupportedOperationException | SecurityException e) {
            // No guard on this JVM: a case's System.exit ends the batch.
        }
    }

    public static void main(String[] a) throws Exception {
        if (a.length != 2) {
            System.err.println("usage: ApacheBatch CLASS FILE");
            System.exit(2);
        }
        Method main = Class.forName(a[0]).getMethod("main", String[].class);
        PrintStream realOut = System.out;
        org.apache.kafka.common.utils.internals.Exit.setExitProcedure((status, msg) -> {
            throw exitOf(status);
        });
        org.apache.kafka.common.utils.internals.Exit.setHaltProcedure((status, msg) -> {
            throw exitOf(status);
        });
        guardSystemExit();
        List<String> lines = Files.readAllLines(Paths.get(a[1]), StandardCharsets.UTF_8);
        for (String line : lines) {
            String[] args = line.isEmpty() ? new String[0] : line.split("\t", -1);
            ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
            PrintStream po = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream pe = new PrintStream(err, true, StandardCharsets.UTF_8);
            System.setOut(po);
            System.setErr(pe);
            code = 0;
            exited = false;
            inCase = true;
            try {
                main.invoke(null, (Object) args);
            } catch (InvocationTargetException e) {
                Throwable t = e.getCause();
                if (!(t instanceof Exited) && !exited) {
                    pe.print("Exception in thread \"main\" ");
                    t.printStackTrace(pe);
                    code = 1;
                }
            } finally {
                inCase = false;
            }
            System.out.flush();
            System.err.flush();
            realOut.println("@@case " + code);
            realOut.println(Base64.getEncoder().encodeToString(out.toByteArray()));
            realOut.println(Base64.getEncoder().encodeToString(err.toByteArray()));
        }
        realOut.flush();
        // Tools may leave non-daemon threads (admin clients) behind.
        System.exit(0);
    }
}
