package io.idmint;

/**
 * The parts of an order number as {@link Template#parse(String)} reads them. A part the template
 * does not have is {@code null}.
 *
 * @param year     the year ({@code %Y}, or 2000 + {@code %y})
 * @param month    the month, 1-12 ({@code %M})
 * @param day      the day of the month ({@code %D})
 * @param hour     the hour, 0-23 ({@code %H})
 * @param minute   the minute ({@code %m})
 * @param second   the second ({@code %s})
 * @param label    the label as it appears, padding included ({@code %L})
 * @param sequence the sequence ({@code %NS})
 * @param check    the check digits, already verified
 */
public record TemplateParts(Integer year, Integer month, Integer day, Integer hour, Integer minute,
        Integer second, String label, long sequence, String check) {}
