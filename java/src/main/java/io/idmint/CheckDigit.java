package io.idmint;

/** The check digits a {@link Template} appends (docs/formats.md). */
public enum CheckDigit {
    /** None. */
    NONE("none"),
    /** One Luhn (mod 10) digit: catches every single-digit typo and most swaps of neighbours. */
    LUHN("luhn"),
    /** Two ISO 7064 MOD 97-10 digits (as IBANs): catch every single typo and every swap of neighbours. */
    MOD97("mod97");

    private final String text;

    CheckDigit(String text) {
        this.text = text;
    }

    /** The core's name: {@code none}, {@code luhn} or {@code mod97}. */
    public String text() {
        return text;
    }

    static CheckDigit ofText(String text) {
        for (CheckDigit c : values()) {
            if (c.text.equals(text)) {
                return c;
            }
        }
        throw new IllegalStateException("idmint: unknown check digit from the core: " + text);
    }

    @Override
    public String toString() {
        return text;
    }
}
