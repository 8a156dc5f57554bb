package io.idmint;

/** The layout's time field has run out: no more IDs with this layout and epoch (core kind {@code layout_exhausted}). */
public final class LayoutExhaustedException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "layout_exhausted";

    LayoutExhaustedException(String message) {
        super(KIND, message);
    }
}
