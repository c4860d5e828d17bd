// Prints Kafka's Errors enum as "code TAB name TAB exception class" lines,
// in code order, without NONE: testdata/errors-VERSION.tsv. Run with the
// kafka-clients jar and slf4j-api on the class path:
//   java -cp kafka-clients-4.4.0.jar:slf4j-api-1.7.36.jar Dump.java
import java.util.Arrays;
import java.util.Comparator;
import org.apache.kafka.common.protocol.Errors;

public class Dump {
    public static void main(String[] args) {
        Errors[] all = Errors.values();
        Arrays.sort(all, Comparator.comparingInt(Errors::code));
        for (Errors e : all) {
            if (e.code() != 0) {
                System.out.println(e.code() + "\t" + e.name() + "\t" + e.exception().getClass().getName());
            }
        }
    }
}
