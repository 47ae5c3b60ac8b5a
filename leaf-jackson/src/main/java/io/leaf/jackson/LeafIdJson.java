package io.leaf.jackson;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * Marks a {@code long}/{@code Long} property as a Leaf ID: written as a number while JavaScript
 * holds it exactly and as a string past {@code 2^53 - 1}; read from either. Needs no module.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@JacksonAnnotationsInside
@JsonSerialize(using = LeafIdSerializer.class)
@JsonDeserialize(using = LeafIdDeserializer.class)
public @interface LeafIdJson {}
