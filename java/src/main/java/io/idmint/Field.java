package io.idmint;

/**
 * One field of a layout below the time field.
 *
 * @param name       the field's name ({@code sequence} for the sequence)
 * @param bits       its width in bits
 * @param shift      how many bits lie below it
 * @param isSequence whether it is the sequence (else a node field)
 * @param max        the largest value it holds
 */
public record Field(String name, int bits, int shift, boolean isSequence, long max) {}
