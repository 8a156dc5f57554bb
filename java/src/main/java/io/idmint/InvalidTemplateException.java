package io.idmint;

/** An order-number template that cannot be used (core kind {@code invalid_template}). */
public final class InvalidTemplateException extends IdmintException {
    private static final long serialVersionUID = 1L;
    static final String KIND = "invalid_template";

    InvalidTemplateException(String message) {
        super(KIND, message);
    }
}
