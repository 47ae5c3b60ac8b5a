package io.leaf.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code leaf.client.*} properties: where the Leaf server is, how to reach it, and the settings
 * of each business tag's ID generator; {@link #validate} rejects bad values with a message naming
 * the property, which fails the application context at start.
 */
@ConfigurationProperties(prefix = LeafClientProperties.PREFIX)
public class LeafClientProperties implements Validator {

  /** The prefix of every property here. */
  public static final String PREFIX = "leaf.client";

  /** The server's {@code --max-batch} default: the largest reservation a server grants. */
  static final int SERVER_MAX_BATCH = 10_000_000;

  /** The Leaf server: "host:port" or any gRPC target URI (e.g. dns:///leaf.example.com:50051). */
  private String target = "localhost:50051";

  /** Whether target was set (by a property), so that it is not set together with targets. */
  private boolean targetSet;

  /**
   * Several Leaf servers in order of preference, instead of target (e.g. this region's, then the
   * next region's): calls go to the first that answers, move to the next when it is unavailable or
   * silent for failover-after, and move back once it answers again. CreateTag and SetFormat never
   * move.
   */
  private final List<String> targets = new ArrayList<>();

  /**
   * With targets: the longest one attempt waits for an answer while another target remains, before
   * the call moves on (an UNAVAILABLE answer moves it at once).
   */
  private Duration failoverAfter = Duration.ofSeconds(2);

  /** With targets: how long calls pass over a target found unavailable before trying it again. */
  private Duration retryPreferredAfter = Duration.ofSeconds(30);

  /**
   * ID calls on a STRICT tag go straight to the owner a server names (the leaf-owner response
   * header), with this client's tokens: only for servers whose advertised addresses are reachable
   * and trusted. NextSequence always goes to the targets.
   */
  private boolean callOwners;

  /** The deadline of every call, retries included. */
  private Duration deadline = Duration.ofSeconds(10);

  /**
   * Attempts per call when the server answers UNAVAILABLE, the first included (1 turns retries off;
   * at most 5). CreateTag is never retried.
   */
  private int maxAttempts = 4;

  /**
   * Bearer token sent on every call (the server's --client-token, or its --admin-token to create
   * tags and change steps). Use it with TLS: the token is a password.
   */
  private String token;

  /** A file holding the bearer token (surrounding whitespace ignored); instead of token. */
  private Path tokenFile;

  /**
   * Bearer tokens by tag prefix, for a server whose --tokens-file gives each team its own token:
   * calls of a tag starting with the prefix send that token instead of token (the longest prefix
   * wins; a prefix with dots goes in brackets: leaf.client.tag-tokens[order.]=...).
   */
  private final Map<String, String> tagTokens = new LinkedHashMap<>();

  /** How long the health indicator waits for the server's health check. */
  private Duration healthTimeout = Duration.ofSeconds(2);

  /**
   * The most generators one application holds: the configured tags plus those first asked for in
   * code. Each holds a refill thread and its reserved IDs.
   */
  private int maxGenerators = 64;

  /** Transport security. */
  private final Tls tls = new Tls();

  /**
   * ID generators by business tag: leaf.client.generators.TAG.min-block-size and so on (a tag with
   * dots goes in brackets: leaf.client.generators[order.v2].max-wait). Tags not listed get the
   * defaults.
   */
  private final Map<String, Generator> generators = new LinkedHashMap<>();

  public String getTarget() {
    return target;
  }

  public void setTarget(String target) {
    this.target = target;
    this.targetSet = true;
  }

  /** Whether {@code target} was set. */
  boolean isTargetSet() {
    return targetSet;
  }

  public List<String> getTargets() {
    return targets;
  }

  public Duration getFailoverAfter() {
    return failoverAfter;
  }

  public void setFailoverAfter(Duration failoverAfter) {
    this.failoverAfter = failoverAfter;
  }

  public Duration getRetryPreferredAfter() {
    return retryPreferredAfter;
  }

  public void setRetryPreferredAfter(Duration retryPreferredAfter) {
    this.retryPreferredAfter = retryPreferredAfter;
  }

  public boolean isCallOwners() {
    return callOwners;
  }

  public void setCallOwners(boolean callOwners) {
    this.callOwners = callOwners;
  }

  public Duration getDeadline() {
    return deadline;
  }

  public void setDeadline(Duration deadline) {
    this.deadline = deadline;
  }

  public int getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
  }

  public String getToken() {
    return token;
  }

  public void setToken(String token) {
    this.token = token;
  }

  public Path getTokenFile() {
    return tokenFile;
  }

  public void setTokenFile(Path tokenFile) {
    this.tokenFile = tokenFile;
  }

  public Map<String, String> getTagTokens() {
    return tagTokens;
  }

  public Duration getHealthTimeout() {
    return healthTimeout;
  }

  public void setHealthTimeout(Duration healthTimeout) {
    this.healthTimeout = healthTimeout;
  }

  public int getMaxGenerators() {
    return maxGenerators;
  }

  public void setMaxGenerators(int maxGenerators) {
    this.maxGenerators = maxGenerators;
  }

  public Tls getTls() {
    return tls;
  }

  public Map<String, Generator> getGenerators() {
    return generators;
  }

  /** Never shows the token. */
  @Override
  public String toString() {
    return "LeafClientProperties[target="
        + target
        + ", targets="
        + targets
        + ", callOwners="
        + callOwners
        + ", deadline="
        + deadline
        + ", maxAttempts="
        + maxAttempts
        + ", token="
        + (token == null ? "none" : "***")
        + ", tokenFile="
        + tokenFile
        + ", tagTokens="
        + tagTokens.keySet()
        + ", tls="
        + tls.enabled
        + ", generators="
        + generators.keySet()
        + "]";
  }

  @Override
  public boolean supports(Class<?> type) {
    return LeafClientProperties.class.isAssignableFrom(type);
  }

  @Override
  public void validate(Object target, Errors errors) {
    new PropertiesCheck(errors).check((LeafClientProperties) target);
  }

  /** Transport security ({@code leaf.client.tls.*}). */
  public static class Tls {

    /** Connect with TLS (the JDK's trust store unless trust-certificate is set). */
    private boolean enabled;

    /** PEM file of the CA certificates to trust instead of the JDK's. */
    private Path trustCertificate;

    /**
     * PEM file of this client's certificate chain, for servers that require client certificates.
     */
    private Path certificate;

    /** PEM file of the private key of certificate (PKCS#8). */
    private Path privateKey;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Path getTrustCertificate() {
      return trustCertificate;
    }

    public void setTrustCertificate(Path trustCertificate) {
      this.trustCertificate = trustCertificate;
    }

    public Path getCertificate() {
      return certificate;
    }

    public void setCertificate(Path certificate) {
      this.certificate = certificate;
    }

    public Path getPrivateKey() {
      return privateKey;
    }

    public void setPrivateKey(Path privateKey) {
      this.privateKey = privateKey;
    }
  }

  /** One business tag's generator ({@code leaf.client.generators.<tag>.*}). */
  public static class Generator {

    /** The smallest reservation of IDs, also the first one. */
    private int minBlockSize = 1_000;

    /** The largest reservation of IDs (at most the server's --max-batch, 10000000 by default). */
    private int maxBlockSize = 1_000_000;

    /** Reserve again once this fraction of the current reservation is used, in [0, 1). */
    private double refillThreshold = 0.1;

    /** How long one reservation should last at the current rate; sizes the next reservation. */
    private Duration targetRefillInterval = Duration.ofSeconds(5);

    /** The longest a call waits when every reserved ID is used up. */
    private Duration maxWait = Duration.ofSeconds(5);

    public int getMinBlockSize() {
      return minBlockSize;
    }

    public void setMinBlockSize(int minBlockSize) {
      this.minBlockSize = minBlockSize;
    }

    public int getMaxBlockSize() {
      return maxBlockSize;
    }

    public void setMaxBlockSize(int maxBlockSize) {
      this.maxBlockSize = maxBlockSize;
    }

    public double getRefillThreshold() {
      return refillThreshold;
    }

    public void setRefillThreshold(double refillThreshold) {
      this.refillThreshold = refillThreshold;
    }

    public Duration getTargetRefillInterval() {
      return targetRefillInterval;
    }

    public void setTargetRefillInterval(Duration targetRefillInterval) {
      this.targetRefillInterval = targetRefillInterval;
    }

    public Duration getMaxWait() {
      return maxWait;
    }

    public void setMaxWait(Duration maxWait) {
      this.maxWait = maxWait;
    }
  }
}
