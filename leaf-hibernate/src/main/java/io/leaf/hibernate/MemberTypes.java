package io.leaf.hibernate;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;

/** Checks at start that an annotated identifier has a type its generator can fill. */
final class MemberTypes {

  private MemberTypes() {}

  /** Throws naming the member and the annotation unless its type is one of {@code allowed}. */
  static void require(Member member, String annotation, Class<?>... allowed) {
    Class<?> type =
        member instanceof Field f
            ? f.getType()
            : member instanceof Method m ? m.getReturnType() : null;
    for (Class<?> a : allowed) {
      if (a.equals(type)) {
        return;
      }
    }
    StringBuilder names = new StringBuilder();
    for (Class<?> a : allowed) {
      names.append(names.length() == 0 ? "" : " or ").append(a.getSimpleName());
    }
    throw new IllegalArgumentException(
        "@"
            + annotation
            + " on "
            + member.getDeclaringClass().getName()
            + "."
            + member.getName()
            + " needs a "
            + names
            + " identifier, not "
            + (type == null ? "this member" : type.getName()));
  }
}
