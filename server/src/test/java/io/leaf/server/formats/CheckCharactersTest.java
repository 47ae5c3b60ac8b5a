package io.leaf.server.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CheckCharactersTest {

  /** 2,000 numbers of 1 to 20 digits, leading zeros included: the sample every scheme must pass. */
  private static final List<String> SAMPLE = sample();

  @Test
  void compute_publishedExamples_matchTheStandards() {
    assertEquals("3", CheckCharacters.LUHN.compute("7992739871"), "Luhn's textbook example");
    assertEquals("3", CheckCharacters.VERHOEFF.compute("236"), "Verhoeff's textbook example");
    assertEquals("44", CheckCharacters.MOD97.compute("794"), "ISO 7064's MOD 97-10 example");
    assertEquals("1", CheckCharacters.VERHOEFF.compute("12345"), "Verhoeff");
  }

  @Test
  void compute_allZeros_eachSchemesCheck() {
    // Sequence 0 of a pattern without other digits: the library refuses a zero Luhn sum.
    assertEquals("0", CheckCharacters.LUHN.compute("000000"), "Luhn of a zero sum");
    assertEquals("6", CheckCharacters.VERHOEFF.compute("000000"), "Verhoeff counts zeros");
    assertEquals("98", CheckCharacters.MOD97.compute("000000"), "98 - 0 mod 97");
    assertTrue(CheckCharacters.LUHN.verify("0", "0"), "a single zero");
  }

  @Test
  void compute_mod97_isIso7064OverEveryLength() {
    for (String digits : SAMPLE) {
      String check = CheckCharacters.MOD97.compute(digits);
      assertEquals(2, check.length(), "two digits for " + digits);
      assertEquals(
          BigInteger.ONE,
          new BigInteger(digits + check).mod(BigInteger.valueOf(97)),
          "ISO 7064 MOD 97-10: the number with its check is 1 mod 97, for " + digits);
    }
  }

  @Test
  void verify_everySingleDigitSubstitution_caughtByEveryScheme() {
    for (CheckCharacters scheme : CheckCharacters.values()) {
      int tried = 0;
      for (String digits : SAMPLE) {
        String whole = digits + scheme.compute(digits);
        for (int i = 0; i < whole.length(); i++) {
          for (char d = '0'; d <= '9'; d++) {
            if (d == whole.charAt(i)) {
              continue;
            }
            String typo = whole.substring(0, i) + d + whole.substring(i + 1);
            assertFalse(accepts(scheme, typo), scheme + " missed " + whole + " -> " + typo);
            tried++;
          }
        }
      }
      assertTrue(tried > 100_000, scheme + " tried " + tried + " substitutions");
    }
  }

  @Test
  void verify_adjacentTranspositions_caughtByThoseThatPromiseIt() {
    for (CheckCharacters scheme : CheckCharacters.values()) {
      int tried = 0;
      int missed = 0;
      for (String digits : SAMPLE) {
        String whole = digits + scheme.compute(digits);
        for (int i = 0; i + 1 < whole.length(); i++) {
          char a = whole.charAt(i);
          char b = whole.charAt(i + 1);
          if (a == b) {
            continue;
          }
          String swapped = whole.substring(0, i) + b + a + whole.substring(i + 2);
          tried++;
          if (accepts(scheme, swapped)) {
            missed++;
            boolean nineZero = (a == '0' && b == '9') || (a == '9' && b == '0');
            assertTrue(
                !scheme.catchesAdjacentTranspositions() && nineZero,
                scheme + " missed " + whole + " -> " + swapped);
          }
        }
      }
      assertTrue(tried > 10_000, scheme + " tried " + tried + " transpositions");
      assertEquals(
          scheme.catchesAdjacentTranspositions(),
          missed == 0,
          scheme + " missed " + missed + " of " + tried);
    }
  }

  @Test
  void verify_luhn_misses09And90() {
    String digits = "1209";
    String whole = digits + CheckCharacters.LUHN.compute(digits);
    String swapped = "1290" + whole.substring(4);
    assertTrue(
        CheckCharacters.LUHN.verify(swapped.substring(0, 4), swapped.substring(4)),
        "Luhn cannot tell 09 from 90: " + whole + " vs " + swapped);
    assertFalse(
        CheckCharacters.VERHOEFF.verify("1290", CheckCharacters.VERHOEFF.compute("1209")),
        "Verhoeff can");
  }

  @Test
  void compute_nonDigitsOrEmpty_refused() {
    for (CheckCharacters scheme : CheckCharacters.values()) {
      assertThrows(IllegalArgumentException.class, () -> scheme.compute("12a4"), scheme + " a");
      assertThrows(IllegalArgumentException.class, () -> scheme.compute(""), scheme + " empty");
      assertFalse(scheme.verify("123", "x".repeat(scheme.length())), scheme + " letter check");
      assertFalse(scheme.verify("123", "0".repeat(scheme.length() + 1)), scheme + " too long");
    }
    assertEquals(
        CheckCharacters.MOD97,
        CheckCharacters.forPatternName("mod97").orElseThrow(),
        "pattern name");
    assertTrue(CheckCharacters.forPatternName("damm").isEmpty(), "Damm is not offered");
  }

  private static boolean accepts(CheckCharacters scheme, String whole) {
    int split = whole.length() - scheme.length();
    return scheme.verify(whole.substring(0, split), whole.substring(split));
  }

  private static List<String> sample() {
    Random random = new Random(29);
    List<String> sample = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      int length = 1 + random.nextInt(20);
      StringBuilder b = new StringBuilder(length);
      for (int j = 0; j < length; j++) {
        b.append((char) ('0' + random.nextInt(10)));
      }
      sample.add(b.toString());
    }
    return sample;
  }
}
