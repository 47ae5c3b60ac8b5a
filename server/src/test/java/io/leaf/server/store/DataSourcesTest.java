package io.leaf.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.leaf.server.db.H2Url;
import java.util.Optional;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

class DataSourcesTest {

  @Test
  void redact_passwordPropertyOrUserInfo_masked() {
    assertEquals(
        "jdbc:mysql://db:3306/leaf?user=leaf&password=***&useSSL=true",
        DataSources.redact("jdbc:mysql://db:3306/leaf?user=leaf&password=s3cret&useSSL=true"));
    assertEquals(
        "jdbc:mysql://leaf:***@db:3306/leaf",
        DataSources.redact("jdbc:mysql://leaf:s3cret@db:3306/leaf"));
    assertEquals(
        "jdbc:h2:file:./data/leaf;PASSWORD=***;MODE=MySQL",
        DataSources.redact("jdbc:h2:file:./data/leaf;PASSWORD=s3cret;MODE=MySQL"));
    assertEquals("jdbc:mysql://db:3306/leaf", DataSources.redact("jdbc:mysql://db:3306/leaf"));
  }

  @Test
  void connectionUrl_h2FileWithoutSettings_getsMySqlModeAndWriteDelay() {
    assertEquals(
        "jdbc:h2:file:/data/leaf;MODE=MySQL;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE",
        DataSources.connectionUrl("jdbc:h2:file:/data/leaf"));
  }

  @Test
  void connectionUrl_embeddedH2_closedByTheServerNotByH2sShutdownHook() {
    assertEquals(
        "jdbc:h2:./leaf;MODE=MySQL;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE",
        DataSources.connectionUrl("jdbc:h2:./leaf"));
    assertEquals(
        "jdbc:h2:file:/x;db_close_on_exit=TRUE;MODE=MySQL;WRITE_DELAY=0",
        DataSources.connectionUrl("jdbc:h2:file:/x;db_close_on_exit=TRUE"),
        "the user's own");
    assertEquals(
        "jdbc:h2:tcp://h/~/leaf;MODE=MySQL;WRITE_DELAY=0",
        DataSources.connectionUrl("jdbc:h2:tcp://h/~/leaf"),
        "the H2 server closes its own");
  }

  @Test
  void exclusive_h2Urls_onlyWhereNoOtherProcessCanOpenTheDatabase() {
    for (String url :
        new String[] {
          "jdbc:h2:./data/leaf",
          "jdbc:h2:file:/x;MODE=MySQL",
          "jdbc:h2:~/leaf;AUTO_SERVER=FALSE",
          "jdbc:h2:file:/x;FILE_LOCK=FS"
        }) {
      assertTrue(H2Url.exclusive(url), url);
    }
    for (String url :
        new String[] {
          "jdbc:h2:file:/x;AUTO_SERVER=TRUE",
          "jdbc:h2:./x;auto_server=true",
          "jdbc:h2:tcp://h/~/leaf",
          "jdbc:h2:ssl://h/~/leaf",
          "jdbc:h2:file:/x;FILE_LOCK=NO",
          "jdbc:h2:mem:leaf",
          "jdbc:mysql://h/leaf",
          "jdbc:postgresql://h/leaf"
        }) {
      assertFalse(H2Url.exclusive(url), url);
    }
  }

  @Test
  void connectionUrl_settingsGivenInAnyCase_keptAsTheyAre() {
    assertEquals(
        "jdbc:h2:file:/data/leaf;mode=mariadb;write_delay=100;db_close_on_exit=true",
        DataSources.connectionUrl(
            "jdbc:h2:file:/data/leaf;mode=mariadb;write_delay=100;db_close_on_exit=true"));
  }

  @Test
  void connectionUrl_namedMem_livesAsLongAsTheProcess() {
    assertEquals(
        "jdbc:h2:mem:leaf;MODE=MySQL;WRITE_DELAY=0;DB_CLOSE_DELAY=-1" + ";DB_CLOSE_ON_EXIT=FALSE",
        DataSources.connectionUrl("jdbc:h2:mem:leaf"));
    assertEquals(
        "jdbc:h2:mem:leaf;DB_CLOSE_DELAY=10;MODE=MySQL;WRITE_DELAY=0" + ";DB_CLOSE_ON_EXIT=FALSE",
        DataSources.connectionUrl("jdbc:h2:mem:leaf;DB_CLOSE_DELAY=10"));
  }

  @Test
  void connectionUrl_mysql_unchanged() {
    assertEquals(
        "jdbc:mysql://db:3306/leaf?useSSL=false",
        DataSources.connectionUrl("jdbc:mysql://db:3306/leaf?useSSL=false"));
  }

  @Test
  void urlProblem_usableUrls_none() {
    for (String url :
        new String[] {
          "jdbc:mysql://h1,h2/leaf",
          "jdbc:mysql://h:3306/leaf?a=b",
          "jdbc:mysql:replication://h1,h2/leaf",
          "jdbc:h2:./data/leaf",
          "jdbc:h2:file:/x;MODE=MySQL",
          "jdbc:h2:mem:leaf",
          "jdbc:h2:tcp://h/~/leaf;MODE=MariaDB"
        }) {
      assertEquals(Optional.empty(), DataSources.urlProblem(url), url);
    }
  }

  @Test
  void urlProblem_mysqlWithoutDatabase_namesTheFix() {
    for (String url :
        new String[] {
          "jdbc:mysql://127.0.0.1:3306/",
          "jdbc:mysql://db:3306",
          "jdbc:mysql://db/?useSSL=false",
          "jdbc:mysql:loadbalance://h1,h2/"
        }) {
      String problem = DataSources.urlProblem(url).orElseThrow(() -> new AssertionError(url));
      assertTrue(problem.startsWith("names no database"), problem);
    }
  }

  @Test
  void urlProblem_unnamedMem_namesTheFix() {
    for (String url : new String[] {"jdbc:h2:mem:", "jdbc:h2:mem:;MODE=MySQL"}) {
      String problem = DataSources.urlProblem(url).orElseThrow();
      assertTrue(problem.contains("jdbc:h2:mem:leaf"), problem);
    }
  }

  @Test
  void dialectOf_supportedAndNot() {
    assertEquals(SQLDialect.MYSQL, DataSources.dialectOf("jdbc:mysql://127.0.0.1/leaf"));
    assertEquals(SQLDialect.H2, DataSources.dialectOf("jdbc:h2:file:/x"));
    assertEquals(
        SQLDialect.POSTGRES,
        DataSources.dialectOf("jdbc:postgresql://h1:5432,h2:5432/leaf?targetServerType=primary"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> DataSources.dialectOf("jdbc:sqlserver://x;databaseName=leaf"));
    assertEquals(
        "unusable database URL: must start with jdbc:mysql: (MySQL or MariaDB),"
            + " jdbc:postgresql: or jdbc:h2:, got jdbc:sqlserver://x;databaseName=leaf",
        e.getMessage());
  }

  @Test
  void create_postgresUrl_driverDefaultsTheUrlCanOverride() {
    try (HikariDataSource pool =
        DataSources.create("jdbc:postgresql://h1,h2/leaf?hostRecheckSeconds=5", "leaf", "", 1)) {
      assertEquals(
          "2",
          pool.getDataSourceProperties().getProperty("hostRecheckSeconds"),
          "Leaf's default, which pgjdbc reads under the URL's own hostRecheckSeconds=5");
      assertEquals("3", pool.getDataSourceProperties().getProperty("connectTimeout"));
      assertEquals("10", pool.getDataSourceProperties().getProperty("socketTimeout"));
    }
  }

  @Test
  void connectionUrl_autoServerOn_noDbCloseOnExitWhichH2RefusesWithIt() {
    for (String on : new String[] {"TRUE", "yes", "1"}) {
      String url = DataSources.connectionUrl("jdbc:h2:file:/data/leaf;AUTO_SERVER=" + on);
      assertEquals(
          "jdbc:h2:file:/data/leaf;AUTO_SERVER=" + on + ";MODE=MySQL;WRITE_DELAY=0",
          url,
          "H2 answers \"Feature not supported\" to AUTO_SERVER with DB_CLOSE_ON_EXIT=FALSE");
    }
  }
}
