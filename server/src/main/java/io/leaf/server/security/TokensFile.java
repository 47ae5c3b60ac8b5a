package io.leaf.server.security;

import com.google.common.base.Ticker;
import io.leaf.server.logging.WarnLimiter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry of {@code --tokens-file}, re-read whenever the file's content changes; a changed
 * file that does not parse leaves the previous registry serving.
 *
 * <p>Read at start (a file that cannot be used, or lists no token, stops the server with one line
 * naming the file, and the line and the rule where one is broken), then every refresh period; a
 * changed file that parses replaces the registry whole, one that does not is logged once as a
 * warning (the reason and line number, never a hash). Tokens whose name and rate stay keep their
 * buckets.
 *
 * <p>The file is compared by its content's digest, so a same-size rewrite within a clock tick is
 * seen too. Write it atomically (a new file renamed over the old, as a Kubernetes Secret mount
 * does): a file caught half-written either fails to parse (kept out) or lists fewer tokens until
 * the next read. Thread-safe.
 */
public final class TokensFile implements Supplier<TokenRegistry>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(TokensFile.class);

  /** The largest file read: far above {@link TokenFileParser#MAX_TOKENS} lines. */
  static final long MAX_BYTES = 4L << 20;

  static final String FLAG = "--tokens-file";

  private final Path file;
  private final Ticker ticker;
  private final TokenMeters meters;
  private final ScheduledExecutorService refresher;
  private volatile TokenRegistry current;

  /** The digest of the content last read, good or not: each change is reported once. */
  private byte[] seen;

  private final WarnLimiter warnings;
  private String lastWarning;

  /**
   * Reads {@code file} and, with a {@code refresher}, re-reads it every {@code period}.
   *
   * @param refresher runs the re-reads and is shut down by {@link #close}; null: only {@link
   *     #reload} re-reads
   * @throws IllegalArgumentException {@code --tokens-file <file>: ...}, one line
   */
  public TokensFile(
      Path file,
      Ticker ticker,
      TokenMeters meters,
      ScheduledExecutorService refresher,
      java.time.Duration period) {
    this.file = file;
    this.ticker = ticker;
    this.meters = meters;
    this.warnings = new WarnLimiter(ticker, WarnLimiter.ONCE_A_MINUTE);
    byte[] content = read();
    this.current = parse(content, null);
    if (current.size() == 0) {
      // As an empty --admin-token-file is: a server whose every call would be refused is a
      // mistake to refuse at start, not a server to run.
      throw new IllegalArgumentException(
          FLAG
              + " "
              + file
              + " lists no token, so every call"
              + " would be refused; list at least one (NAME HASH ROLE TAGS) or leave the flag out");
    }
    this.seen = sha256(content);
    this.refresher = refresher;
    if (refresher != null) {
      long nanos = period.toNanos();
      refresher.scheduleWithFixedDelay(this::refresh, nanos, nanos, TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public TokenRegistry get() {
    return current;
  }

  /**
   * Reads the file again and installs it when its content changed and parses.
   *
   * @return whether a new registry is in force
   * @throws IllegalArgumentException the file cannot be read or used; the previous registry stays
   */
  public synchronized boolean reload() {
    byte[] content = read();
    byte[] digest = sha256(content);
    if (Arrays.equals(digest, seen)) {
      return false;
    }
    seen = digest;
    TokenRegistry next = parse(content, current);
    current = next;
    log.info("{} {} re-read: {} tokens", FLAG, file, next.size());
    return true;
  }

  private void refresh() {
    String warning;
    try {
      reload();
      lastWarning = null;
      warnings.reset();
      return;
    } catch (IllegalArgumentException e) {
      warning = e.getMessage() + "; the previous " + current.size() + " tokens keep serving";
    } catch (RuntimeException e) {
      warning =
          FLAG
              + " "
              + file
              + " not re-read ("
              + e.getClass().getSimpleName()
              + "); the previous tokens keep serving";
    }
    // A new reason is told at once; the same one (a file gone for good, read every
    // --tokens-refresh) at most once a minute.
    long skipped = warnings.acquire();
    if (!warning.equals(lastWarning)) {
      lastWarning = warning;
      log.warn("{}", warning);
    } else if (skipped >= 0) {
      log.warn("{}{}", warning, WarnLimiter.heldBack(skipped));
    }
  }

  private TokenRegistry parse(byte[] content, TokenRegistry previous) {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(content))
              .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(FLAG + " " + file + " is not UTF-8 text");
    }
    try {
      return TokenRegistry.of(TokenFileParser.parse(text), previous, ticker, meters);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(FLAG + " " + file + " " + e.getMessage(), e);
    }
  }

  private byte[] read() {
    try {
      if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
        throw new IllegalArgumentException(FLAG + " " + file + " is not a readable file");
      }
      if (Files.size(file) > MAX_BYTES) {
        throw new IllegalArgumentException(
            FLAG + " " + file + " is larger than " + MAX_BYTES + " bytes");
      }
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          FLAG + " " + file + " cannot be read: " + e.getClass().getSimpleName());
    }
  }

  private static byte[] sha256(byte[] content) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(content);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  @Override
  public void close() {
    if (refresher != null) {
      refresher.shutdownNow();
    }
  }
}
