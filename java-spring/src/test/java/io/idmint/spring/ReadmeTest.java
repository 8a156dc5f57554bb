package io.idmint.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * README.md shows what the test application runs: its properties block is the application's
 * {@code idmint.*} settings, and each line of its entity snippets stands in the application's
 * sources ({@code SpringAppProcessesTest} runs them).
 */
class ReadmeTest {
    private static List<String> blocks(String readme, String lang) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("```" + lang + "\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void propertiesAreTheApplications() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        List<String> app = Files.readAllLines(Path.of("src/test/resources/application.properties")).stream()
                .filter(l -> l.startsWith("idmint.")).collect(Collectors.toList());
        List<String> shown = blocks(readme, "properties").get(0).lines().collect(Collectors.toList());
        assertThat(shown).isEqualTo(app);
    }

    @Test
    void entitySnippetsAreTheApplications() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        String sources;
        try (Stream<Path> files = Files.list(Path.of("src/test/java/io/idmint/spring/app"))) {
            StringBuilder all = new StringBuilder();
            for (Path f : files.collect(Collectors.toList())) {
                all.append(Files.readString(f));
            }
            sources = all.toString();
        }
        List<String> java = blocks(readme, "java");
        assertThat(java).isNotEmpty();
        for (String line : java.get(0).lines().collect(Collectors.toList())) {
            String code = line.replaceAll("\\s*//.*$", "");
            if (!code.isBlank() && !code.trim().equals("...")) {
                assertThat(sources).as("README line " + line).contains(code);
            }
        }
    }
}
