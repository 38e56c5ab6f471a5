import com.sun.tools.attach.VirtualMachine;
import java.util.Set;
import java.util.TreeSet;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads the MBeans matching a pattern from a running JVM of the same user (the broker): attaches
 * with the JDK's Attach API, starts its local JMX agent, prints one line per attribute,
 * {@code <object name>\t<attribute>\t<value>}.
 *
 * <pre>java JmxRead.java PID 'io.lagassign:*'</pre>
 *
 * (the tests compile it once with {@code javac} and run the class).
 */
public final class JmxRead {
    public static void main(String[] args) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(args[0]);
        String address;
        try {
            address = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            Set<ObjectName> names = new TreeSet<>(server.queryNames(new ObjectName(args[1]), null));
            for (ObjectName name : names) {
                for (MBeanAttributeInfo attribute : server.getMBeanInfo(name).getAttributes()) {
                    Object value = server.getAttribute(name, attribute.getName());
                    System.out.println(name + "\t" + attribute.getName() + "\t" + value);
                }
            }
        }
    }
}
