package io.leaf.spring.boot;

import io.leaf.spring.boot.LeafClientProperties.Generator;
import io.leaf.spring.boot.LeafClientProperties.Tls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.springframework.validation.Errors;

/**
 * The rules of {@link LeafClientProperties}: each broken one is an error whose message starts with
 * the full property name and shows the value (never a token's).
 *
 * <p>Not thread-safe; one per validation.
 */
final class PropertiesCheck {

  private static final String P = LeafClientProperties.PREFIX + ".";
  private final Errors errors;

  PropertiesCheck(Errors errors) {
    this.errors = errors;
  }

  void check(LeafClientProperties p) {
    if (p.getTarget() == null || p.getTarget().isBlank()) {
      reject("target", "must not be empty");
    }
    checkTargets(p);
    positive("deadline", p.getDeadline());
    positive("health-timeout", p.getHealthTimeout());
    if (p.getMaxAttempts() < 1 || p.getMaxAttempts() > 5) {
      reject("max-attempts", "must be between 1 and 5, got " + p.getMaxAttempts());
    }
    checkToken(p);
    checkTls(p.getTls());
    if (p.getMaxGenerators() < p.getGenerators().size() || p.getMaxGenerators() < 1) {
      reject(
          "max-generators",
          "must be at least 1 and at least the "
              + p.getGenerators().size()
              + " configured generators, got "
              + p.getMaxGenerators());
    }
    for (Map.Entry<String, Generator> e : p.getGenerators().entrySet()) {
      checkGenerator(e.getKey(), e.getValue());
    }
  }

  private void checkTargets(LeafClientProperties p) {
    if (p.isTargetSet() && !p.getTargets().isEmpty()) {
      reject("target", "and " + P + "targets are both set; set one (targets for several servers)");
    }
    for (int i = 0; i < p.getTargets().size(); i++) {
      String t = p.getTargets().get(i);
      if (t == null || t.isBlank()) {
        reject("targets[" + i + "]", "must not be empty");
      }
    }
    positive("failover-after", p.getFailoverAfter());
    positive("retry-preferred-after", p.getRetryPreferredAfter());
  }

  private void checkToken(LeafClientProperties p) {
    if (p.getToken() != null && p.getTokenFile() != null) {
      reject("token", "and " + P + "token-file are both set; set one");
    }
    if (p.getToken() != null && !printable(p.getToken())) {
      // The message never repeats the token: it is a secret.
      reject("token", "must be printable ASCII without spaces");
    }
    if (p.getTokenFile() != null && !readable(p.getTokenFile())) {
      reject("token-file", "cannot be read: " + p.getTokenFile());
    }
    p.getTagTokens()
        .forEach(
            (prefix, token) -> {
              if (token == null || !printable(token)) {
                reject("tag-tokens[" + prefix + "]", "must be printable ASCII without spaces");
              }
            });
  }

  private static boolean printable(String token) {
    return !token.isEmpty() && token.chars().allMatch(c -> c > 0x20 && c < 0x7f);
  }

  private void checkTls(Tls tls) {
    file("tls.trust-certificate", tls.getTrustCertificate(), tls.isEnabled());
    file("tls.certificate", tls.getCertificate(), tls.isEnabled());
    file("tls.private-key", tls.getPrivateKey(), tls.isEnabled());
    if ((tls.getCertificate() == null) != (tls.getPrivateKey() == null)) {
      reject(
          tls.getCertificate() == null ? "tls.certificate" : "tls.private-key",
          "must be set with "
              + P
              + (tls.getCertificate() == null ? "tls.private-key" : "tls.certificate")
              + " (a client certificate needs both)");
    }
  }

  private void file(String name, Path file, boolean tlsEnabled) {
    if (file == null) {
      return;
    }
    if (!tlsEnabled) {
      reject(name, "is set but " + P + "tls.enabled is false; enable TLS or remove it");
    } else if (!readable(file)) {
      reject(name, "cannot be read: " + file);
    }
  }

  private void checkGenerator(String tag, Generator g) {
    String prefix = "generators." + tag + ".";
    if (!Tags.valid(tag)) {
      reject(
          "generators",
          "has a business tag that is empty, longer than "
              + Tags.MAX_LENGTH
              + " characters or holds a control character: '"
              + tag
              + "'");
    }
    if (g.getMinBlockSize() < 1) {
      reject(prefix + "min-block-size", "must be at least 1, got " + g.getMinBlockSize());
    } else if (g.getMinBlockSize() > g.getMaxBlockSize()) {
      reject(
          prefix + "min-block-size",
          "must be at most "
              + P
              + prefix
              + "max-block-size ("
              + g.getMaxBlockSize()
              + "), got "
              + g.getMinBlockSize());
    }
    if (g.getMaxBlockSize() > LeafClientProperties.SERVER_MAX_BATCH) {
      reject(
          prefix + "max-block-size",
          "must be at most "
              + LeafClientProperties.SERVER_MAX_BATCH
              + ", got "
              + g.getMaxBlockSize());
    }
    if (!(g.getRefillThreshold() >= 0 && g.getRefillThreshold() < 1)) {
      reject(prefix + "refill-threshold", "must be in [0, 1), got " + g.getRefillThreshold());
    }
    positive(prefix + "target-refill-interval", g.getTargetRefillInterval());
    positive(prefix + "max-wait", g.getMaxWait());
  }

  private void positive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      reject(name, "must be positive, got " + d);
    }
  }

  private void reject(String name, String problem) {
    String property = P + name;
    errors.reject("leaf.client.invalid", new Object[] {property}, property + " " + problem);
  }

  /** Readable: the file exists and this process may read it. */
  private static boolean readable(Path file) {
    return Files.isRegularFile(file) && Files.isReadable(file);
  }
}
