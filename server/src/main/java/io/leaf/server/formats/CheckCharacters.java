package io.leaf.server.formats;

import java.util.Optional;
import org.apache.commons.validator.routines.checkdigit.CheckDigit;
import org.apache.commons.validator.routines.checkdigit.CheckDigitException;
import org.apache.commons.validator.routines.checkdigit.IBANCheckDigit;
import org.apache.commons.validator.routines.checkdigit.LuhnCheckDigit;
import org.apache.commons.validator.routines.checkdigit.VerhoeffCheckDigit;

/**
 * The check-character schemes a pattern may name in {@code {check:NAME}}, each computing and
 * verifying the check over a string of decimal digits; all arithmetic is Apache Commons Validator's
 * ({@code org.apache.commons.validator.routines.checkdigit}).
 *
 * <ul>
 *   <li>{@link #LUHN} ({@code luhn}, one digit; {@code LuhnCheckDigit}): catches every single-digit
 *       substitution and every adjacent transposition except 09 ↔ 90.
 *   <li>{@link #VERHOEFF} ({@code verhoeff}, one digit; {@code VerhoeffCheckDigit}): catches every
 *       single-digit substitution and every adjacent transposition.
 *   <li>{@link #MOD97} ({@code mod97}, two digits; ISO 7064 MOD 97-10, the IBAN's check, through
 *       {@code IBANCheckDigit}): catches every single-digit substitution and every adjacent
 *       transposition.
 * </ul>
 *
 * Damm is not offered: Commons Validator has no Damm routine, and check arithmetic is not written
 * here by hand. Stateless and thread-safe; each call costs O(number of digits).
 */
public enum CheckCharacters {
  LUHN("luhn", 1, false) {
    @Override
    String calculate(String digits) throws CheckDigitException {
      // The library refuses a code whose weighted sum is zero (for card numbers, all zeros is no
      // number); for a sequence it is, and Luhn's check of a zero sum is 0.
      return allZeros(digits) ? "0" : LuhnCheckDigit.LUHN_CHECK_DIGIT.calculate(digits);
    }
  },

  VERHOEFF("verhoeff", 1, true) {
    @Override
    String calculate(String digits) throws CheckDigitException {
      return VerhoeffCheckDigit.VERHOEFF_CHECK_DIGIT.calculate(digits);
    }
  },

  MOD97("mod97", 2, true) {
    @Override
    String calculate(String digits) throws CheckDigitException {
      // ISO 7064 MOD 97-10 over N is 98 - (N * 100 mod 97). IBANCheckDigit computes exactly that
      // over its input after moving the first four characters to the end, with characters 2-3
      // set to "00"; so hand it N's last two digits, "00", then the rest of N. Leading zeros do
      // not change N mod 97, and they give short inputs the five characters IBAN needs.
      String n = digits.length() >= 3 ? digits : "000".substring(digits.length()) + digits;
      String rotated = n.substring(n.length() - 2) + "00" + n.substring(0, n.length() - 2);
      return IBAN.calculate(rotated);
    }
  };

  private static final CheckDigit IBAN = IBANCheckDigit.IBAN_CHECK_DIGIT;

  private final String patternName;
  private final int length;
  private final boolean catchesAdjacentTranspositions;

  CheckCharacters(String patternName, int length, boolean catchesAdjacentTranspositions) {
    this.patternName = patternName;
    this.length = length;
    this.catchesAdjacentTranspositions = catchesAdjacentTranspositions;
  }

  abstract String calculate(String digits) throws CheckDigitException;

  /** The name a pattern uses, as in {@code {check:luhn}}. */
  public String patternName() {
    return patternName;
  }

  /** How many digits the check adds to a value. */
  public int length() {
    return length;
  }

  /**
   * Whether every swap of two adjacent, different digits anywhere in the checked string (the check
   * included) is caught; every scheme catches every single-digit substitution. Luhn misses 09 ↔ 90.
   */
  public boolean catchesAdjacentTranspositions() {
    return catchesAdjacentTranspositions;
  }

  /**
   * The check of {@code digits}, {@link #length()} digits long.
   *
   * @throws IllegalArgumentException {@code digits} is empty or holds a non-digit
   */
  public String compute(CharSequence digits) {
    String s = requireDigits(digits, "digits");
    if (s.isEmpty()) {
      throw new IllegalArgumentException("a check needs at least one digit to cover");
    }
    try {
      return calculate(s);
    } catch (CheckDigitException e) {
      // Only digits reach the library, which refuses nothing else; a failure is a defect here.
      throw new IllegalStateException(
          patternName + " check of " + s.length() + " digits failed", e);
    }
  }

  /** Whether {@code check} is the check of {@code digits}; false for anything not all digits. */
  public boolean verify(CharSequence digits, CharSequence check) {
    if (digits.length() == 0
        || check.length() != length
        || !allDigits(digits)
        || !allDigits(check)) {
      return false;
    }
    return compute(digits).contentEquals(check);
  }

  /** The scheme a pattern calls {@code name} ({@code luhn}, {@code verhoeff}, {@code mod97}). */
  public static Optional<CheckCharacters> forPatternName(String name) {
    for (CheckCharacters c : values()) {
      if (c.patternName.equals(name)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  private static String requireDigits(CharSequence s, String what) {
    if (!allDigits(s)) {
      throw new IllegalArgumentException(what + " must be decimal digits 0-9 only");
    }
    return s.toString();
  }

  private static boolean allZeros(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }

  static boolean allDigits(CharSequence s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}
