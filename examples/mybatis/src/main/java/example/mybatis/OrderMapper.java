package example.mybatis;

import com.baomidou.mybatisplus.core.mapper.BaseMapper;

/** The orders table. */
public interface OrderMapper extends BaseMapper<Order> {}
